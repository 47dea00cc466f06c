"""The floor: risk alerts for a supervisor to look at, and live tables waiting for their supervisor."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models.rounds import Round
from tables.models.tables import Table


class RiskAlert(models.Model):
    """Something on the floor a supervisor should look at, raised by ``tables.services.risk`` for one round.

    One row per (kind, round, player, linked player), whatever how often a round is scanned: the scan inserts
    with ``ON CONFLICT DO NOTHING`` against ``risk_alert_once``. Open until a staff member acknowledges it
    (``acknowledged_by``/``acknowledged_at``, with an optional note, audited).
    """

    class Kind(models.TextChoices):
        LARGE_BET = "large_bet", "Large bet"
        LARGE_WIN = "large_win", "Large win"
        EXPOSURE = "exposure", "Table exposure"
        LINKED_ACCOUNTS = "linked", "Linked accounts on Player and Banker"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="risk_alerts")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="risk_alerts")
    # The player (none for a table's exposure); for linked accounts, the one of the two with the lower id.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="risk_alerts"
    )
    # Linked accounts: the other account (the sentence in ``detail`` says who backed which side).
    other_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    detail = models.CharField("what happened", max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The acknowledging staff member's note.")

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("acknowledge_riskalert", "Can acknowledge risk alerts")]
        indexes = [
            models.Index(fields=["-created_at"], condition=Q(acknowledged_at__isnull=True), name="risk_alert_open"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "round", "user", "other_user"], nulls_distinct=False, name="risk_alert_once"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["large_bet", "large_win", "exposure", "linked"]), name="risk_alert_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(acknowledged_at__isnull=True, acknowledged_by__isnull=True)
                | Q(acknowledged_at__isnull=False, acknowledged_by__isnull=False),
                name="risk_alert_acknowledged_by_someone",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.detail}"

    @property
    def is_open(self) -> bool:
        return self.acknowledged_at is None


class SupervisorCall(models.Model):
    """A live table waiting for its supervisor (``tables.services.dealing``): the dealer pressed "Call supervisor",
    or the dealer went silent (no card in time) or the console disconnected mid-round. The table is paused while
    a call is open; the supervisor resumes or cancels (``resolution``), signed in as themselves, audited. At most
    one open call per table."""

    class Kind(models.TextChoices):
        CALLED = "called", "Dealer called"
        SILENT = "silent", "No card scanned in time"
        CONSOLE = "console", "Dealer's console disconnected"

    class Resolution(models.TextChoices):
        NONE = "", "–"
        RESUMED = "resumed", "Resumed"
        CANCELLED = "cancelled", "Round cancelled and refunded"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="supervisor_calls")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    called_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reason = models.CharField("what happened", max_length=200)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    resolution = models.CharField(max_length=9, choices=Resolution.choices, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The supervisor's note.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=Q(resolved_at__isnull=True), name="supervisor_call_one_open_per_table"
            ),
            models.CheckConstraint(condition=Q(kind__in=["called", "silent", "console"]), name="supervisor_call_kind"),
            models.CheckConstraint(
                condition=Q(resolved_at__isnull=True, resolution="")
                | Q(resolved_at__isnull=False, resolution__in=["resumed", "cancelled"]),
                name="supervisor_call_resolved_with_outcome",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.get_kind_display()}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None
