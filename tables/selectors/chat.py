"""Reads of the table chat (``tables.services.chat`` writes): a message as the browser gets it, the table's
recent history for a socket that has just connected, a player's mute in force, the floor's latest messages."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from baccarat_site.clock import iso
from tables.models import ChatMessage, ChatMute


def chat_body(message: ChatMessage, author_name: str | None = None) -> dict[str, Any]:
    """The ``chat.message`` fields of docs/api.md: id, table, author's display name, text, time (UTC, ``Z``)."""
    return {
        "id": message.pk,
        "table_id": message.table_id,
        "author": author_name if author_name is not None else message.author.get_username(),
        "author_id": message.author_id,
        "text": message.text,
        "time": iso(message.created_at),
    }


def history_since(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(minutes=settings.CHAT_HISTORY_MINUTES)


def chat_history(table_id: int, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """The table's messages of the last ``CHAT_HISTORY_MINUTES`` (at most ``CHAT_HISTORY_LIMIT``, the newest),
    not deleted, oldest first."""
    rows = list(
        ChatMessage.objects.filter(table_id=table_id, deleted_at__isnull=True, created_at__gte=history_since(now))
        .select_related("author")
        .order_by("-created_at", "-id")[: settings.CHAT_HISTORY_LIMIT]
    )
    return [chat_body(message) for message in reversed(rows)]


def active_mute(user_id: int, *, now: datetime | None = None) -> ChatMute | None:
    """The mute that keeps the player from writing now (the one ending last), or None."""
    return (
        ChatMute.objects.filter(player_id=user_id, lifted_at__isnull=True, until__gt=now or timezone.now())
        .order_by("-until")
        .first()
    )


def floor_messages(*, limit: int = 30) -> list[ChatMessage]:
    """The newest messages of every table within the history window, deleted ones included (the floor shows
    them struck through), with the authors' mutes in force marked ``muted_until``."""
    rows = list(
        ChatMessage.objects.filter(created_at__gte=history_since())
        .select_related("table", "author", "deleted_by")
        .order_by("-created_at", "-id")[:limit]
    )
    now = timezone.now()
    mutes: dict[int, datetime] = {}
    for mute in ChatMute.objects.filter(
        player_id__in={m.author_id for m in rows}, lifted_at__isnull=True, until__gt=now
    ):
        mutes[mute.player_id] = max(mutes.get(mute.player_id, mute.until), mute.until)
    for message in rows:
        message.muted_until = mutes.get(message.author_id)  # type: ignore[attr-defined]
    return rows
