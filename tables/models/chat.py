"""A table's chat: its messages and the players kept from writing in it (``tables.services.chat``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.tables import Table


class ChatMessage(models.Model):
    """One message of a table's chat (``tables.services.chat``). Never edited; an operator's delete marks it
    (``deleted_at``/``deleted_by``, with the reason in the audit trail), so the admin still shows what was said."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages")
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("moderate_chat", "Can delete chat messages and mute players")]
        indexes = [
            models.Index(fields=["table", "-created_at"], condition=Q(deleted_at__isnull=True), name="chat_recent"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(deleted_at__isnull=True, deleted_by__isnull=True) | Q(deleted_at__isnull=False),
                name="chat_deleted_with_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:60]}"


class ChatMute(models.Model):
    """A player kept from writing in every table's chat until ``until`` (an operator's, audited). Lifted early by
    setting ``lifted_at``/``lifted_by``; a player is muted while any unlifted row runs."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_mutes")
    until = models.DateTimeField()
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["player", "-until"], name="chat_mute_player")]

    def __str__(self) -> str:
        return f"{self.player} muted until {self.until:%Y-%m-%d %H:%M} UTC"
