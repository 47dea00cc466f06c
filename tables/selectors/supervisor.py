"""What the live floor and the admin show of the supervisor calls (``tables.services.dealing``): the open ones,
oldest first (the longest wait on top), each with its table, its round and who called."""

from __future__ import annotations

from django.db.models import QuerySet

from tables.models import SupervisorCall


def calls_with_links() -> QuerySet[SupervisorCall]:
    """Every call with the rows its list shows (table, round and its shoe, who called, who resolved)."""
    return SupervisorCall.objects.select_related("table", "round__shoe", "called_by", "resolved_by")


def open_calls() -> list[SupervisorCall]:
    """The calls still waiting for a supervisor, oldest first (at most one per table)."""
    return list(calls_with_links().filter(resolved_at__isnull=True).order_by("created_at", "id"))


def has_open_call(table_id: int) -> bool:
    """Whether the table waits for its supervisor."""
    return SupervisorCall.objects.filter(table_id=table_id, resolved_at__isnull=True).exists()
