"""The operators' audit trail: every configuration change and operator action, with who, when, what, before, after.

Configuration rows (variants, their bet rows, tables) are registered with ``django-auditlog``, which records
each save with the operator as actor (``AuditlogMiddleware``). Operator *actions* that are not a plain save
(pause, resume, cancel and refund, money movements) are recorded with :func:`audit` by the service or admin
action that performs them, inside the same transaction.
"""

from __future__ import annotations

import json
from typing import Any

from auditlog.models import LogEntry
from django.db.models import Model


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def audit(
    *,
    actor: Any,
    action: str,
    target: Model,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> LogEntry:
    """Record that ``actor`` did ``action`` (e.g. ``"table.pause"``) to ``target``.

    ``before``/``after`` are the values that changed, ``{field: value}``; they are stored as auditlog's
    ``changes`` (``{field: [before, after]}``), and ``action`` and ``reason`` in ``additional_data``.
    """
    before, after = before or {}, after or {}
    changes = {key: [_plain(before.get(key)), _plain(after.get(key))] for key in {*before, *after}}
    user = actor if getattr(actor, "is_authenticated", False) else None
    return LogEntry.objects.log_create(
        target,
        force_log=True,
        action=LogEntry.Action.UPDATE,
        changes=changes,
        actor=user,
        additional_data={"action": action, "reason": reason},
    )
