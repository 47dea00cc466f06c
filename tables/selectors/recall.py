"""Game recall: what a dispute about one round needs besides its cards and bets (the admin's round page).

The operator actions and faults that touched the round, from the audit trail: a cancel is recorded on the
round; a pause or resume on its table, naming the round as ``additional_data["round_id"]``
(``tables.services.controls``). Table entries written before the round was named are matched by time: those
made while the round was live.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.utils import timezone

from baccarat_site.audit import who
from tables.models import Round, Table

ACTION_LABELS = {
    "table.pause": "Table paused",
    "table.resume": "Table resumed",
    "round.cancel": "Round cancelled and refunded",
}


@dataclass(frozen=True)
class RoundAction:
    at: datetime
    action: str
    label: str
    who: str
    reason: str
    changes: str


def _changes_text(changes: Any) -> str:
    if not isinstance(changes, dict):
        return ""
    parts = []
    for key, values in sorted(changes.items()):
        if isinstance(values, list | tuple) and len(values) == 2:
            parts.append(f"{key}: {values[0] if values[0] is not None else '—'} → {values[1]}")
    return "; ".join(parts)


def round_actions(round_: Round) -> list[RoundAction]:
    """Every audited action on ``round_`` or on its table about it (pause, resume, cancel; by an operator, a
    command or a fault), oldest first, each with who did it and why."""
    round_type = ContentType.objects.get_for_model(Round)
    table_type = ContentType.objects.get_for_model(Table)
    on_table = Q(content_type=table_type, object_id=round_.table_id)
    ended = round_.settled_at or round_.cancelled_at or timezone.now()
    legacy = (
        on_table
        & Q(additional_data__has_key="action", timestamp__gte=round_.opens_at, timestamp__lte=ended)
        & ~Q(additional_data__has_key="round_id")
    )
    entries = (
        LogEntry.objects.filter(
            Q(content_type=round_type, object_id=round_.pk)
            | (on_table & Q(additional_data__round_id=round_.pk))
            | legacy
        )
        .select_related("actor")
        .order_by("timestamp", "id")
    )
    out = []
    for entry in entries:
        data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
        action = str(data.get("action") or entry.get_action_display())
        out.append(
            RoundAction(
                at=entry.timestamp,
                action=action,
                label=ACTION_LABELS.get(action, action),
                who=who(entry),
                reason=str(data.get("reason") or ""),
                changes=_changes_text(entry.changes),
            )
        )
    return out
