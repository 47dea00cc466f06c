"""Reads of the risk alerts (``tables.models.RiskAlert``, raised by ``tables.services.risk``)."""

from __future__ import annotations

from django.db.models import QuerySet

from tables.models import RiskAlert

#: The most open alerts the live floor lists (the changelist has them all).
FLOOR_ALERTS = 20


def alerts_with_links() -> QuerySet[RiskAlert]:
    """Alerts with everything a list of them shows: table, round and shoe, both players and their wallets."""
    return RiskAlert.objects.select_related(
        "table", "round__shoe", "user__wallet", "other_user__wallet", "acknowledged_by"
    )


def open_alerts(*, limit: int = FLOOR_ALERTS) -> tuple[list[RiskAlert], int]:
    """The newest open (unacknowledged) alerts, at most ``limit``, and how many are open in all."""
    pending = alerts_with_links().filter(acknowledged_at__isnull=True).order_by("-created_at", "-id")
    return list(pending[:limit]), pending.count()
