"""The operators' controls (and the fault path): pause a table, resume it, cancel a round with refunds.

Each is one transaction under the table's row lock, audited (``baccarat_site.audit``: the operator, a
command's OS user, or a fault, with the reason and the round concerned as ``round_id``), and announced to the
table after commit. Cancelling moves money through ``tables.services.settlement.round_refund``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from baccarat_site.audit import audit
from baccarat_site.errors import DomainError
from tables.events import table_event
from tables.models import Round, Table
from tables.services import settlement
from tables.services.transitions import BEFORE_DEALING, DEALT, live_round

logger = logging.getLogger(__name__)


@transaction.atomic
def table_pause(*, table_id: int, reason: str, fault: bool = False, actor: Any = None) -> dict[str, Any]:
    """Pause a table (operator, or a fault). docs/rules.md, "Disconnection and errors":

    - a round that has not started dealing (betting/closed) is cancelled and every stake refunded;
    - a round being dealt or awaiting settlement is paused and waits for ``table_resume`` or ``round_cancel``.

    No new round opens while the table is paused. Returns what was done; pausing a paused table changes nothing.
    """
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status == Table.Status.PAUSED:
        return {"paused": False, "round_id": None, "round": None}
    round_ = live_round(table_id, lock=True)
    outcome: str | None = None
    if round_ is not None and round_.state in BEFORE_DEALING:
        try:
            with transaction.atomic():
                settlement.round_refund(round_id=round_.pk, reason=reason)
            outcome = Round.State.CANCELLED
        except Exception:  # refund failed: hold the round for the operator instead of losing it
            logger.exception("round %s: cancel failed while pausing; pausing the round instead", round_.pk)
    if round_ is not None and outcome is None and round_.state in (*BEFORE_DEALING, *DEALT):
        updated = Round.objects.filter(pk=round_.pk, state=round_.state).update(
            state=Round.State.PAUSED, paused_from=round_.state, reason=reason
        )
        outcome = Round.State.PAUSED if updated == 1 else None
    Table.objects.filter(pk=table_id).exclude(status=Table.Status.PAUSED).update(
        status=Table.Status.PAUSED, status_reason=reason, next_action_at=None
    )
    # A fault pauses too: recorded with no actor, "via": "fault", so a round's recall shows why it stopped.
    audit(
        actor=None if fault else actor,
        action="table.pause",
        target=table,
        reason=reason,
        before={"status": table.status, "round": round_.state if round_ is not None else None},
        after={"status": Table.Status.PAUSED, "round": outcome},
        extra={"round_id": round_.pk if round_ is not None else None, **({"via": "fault"} if fault else {})},
    )
    table_event(
        table_id,
        {
            "type": "table.paused",
            "table_id": table_id,
            "reason": reason,
            "by": "fault" if fault else "operator",
            "round_id": round_.pk if round_ is not None else None,
            "round_state": outcome,
        },
    )
    return {"paused": True, "round_id": round_.pk if round_ is not None else None, "round": outcome}


@transaction.atomic
def table_resume(*, table_id: int, reason: str = "", actor: Any = None) -> dict[str, Any]:
    """Resume a paused table: a paused round continues from its persisted cards, else the next round opens."""
    now = timezone.now()
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status != Table.Status.PAUSED:
        return {"resumed": False, "round_id": None}
    Table.objects.filter(pk=table_id, status=Table.Status.PAUSED).update(
        status=Table.Status.OPEN, status_reason="", next_action_at=now
    )
    round_ = live_round(table_id, lock=True)
    if round_ is not None and round_.state == Round.State.PAUSED:
        back_to = round_.paused_from if round_.paused_from in DEALT else None
        if back_to is None:  # paused before dealing (a refund that failed): only a cancel can end it
            Table.objects.filter(pk=table_id).update(
                status=Table.Status.PAUSED, status_reason=round_.reason, next_action_at=None
            )
            return {"resumed": False, "round_id": round_.pk}
        Round.objects.filter(pk=round_.pk, state=Round.State.PAUSED).update(state=back_to, paused_from="", reason="")
    audit(
        actor=actor,
        action="table.resume",
        target=table,
        reason=reason,
        before={"status": Table.Status.PAUSED},
        after={"status": Table.Status.OPEN, "round": round_.pk if round_ is not None else None},
        extra={"round_id": round_.pk if round_ is not None else None},
    )
    table_event(
        table_id,
        {
            "type": "table.resumed",
            "table_id": table_id,
            "reason": reason,
            "round_id": round_.pk if round_ is not None else None,
        },
    )
    return {"resumed": True, "round_id": round_.pk if round_ is not None else None}


class RoundNotCancellable(DomainError):
    code = "round_not_cancellable"
    status = 409


@transaction.atomic
def round_cancel(*, round_id: int, reason: str, actor: Any = None) -> int:
    """Operator: cancel a live round and refund every stake (``tables.services.settlement.round_refund``).

    RULES: a round may be cancelled before it has started dealing, or once it is paused (a fault during
    dealing); a round being dealt or showing its result must be paused first. Raises RoundNotCancellable
    otherwise. Returns the number of bets refunded. An open table goes on with its next round; a paused one
    stays paused.
    """
    round_ = Round.objects.select_related("table").get(pk=round_id)
    Table.objects.select_for_update().get(pk=round_.table_id)
    round_ = Round.objects.select_for_update().get(pk=round_id)
    if round_.state in Round.FINAL_STATES:
        return 0  # already settled or cancelled: nothing to refund, nothing to do
    if round_.state not in (*BEFORE_DEALING, Round.State.PAUSED):
        raise RoundNotCancellable(
            f"Round {round_.pk} is {round_.state}: only a round that has not started dealing, or a paused one, "
            "can be cancelled. Pause the table first."
        )
    refunded = settlement.round_refund(round_id=round_id, reason=reason[:200])
    audit(
        actor=actor,
        action="round.cancel",
        target=round_,
        reason=reason,
        before={"state": round_.state},
        after={"state": Round.State.CANCELLED, "bets_refunded": refunded},
        extra={"round_id": round_.pk},
    )
    Table.objects.filter(pk=round_.table_id, status=Table.Status.OPEN).update(next_action_at=timezone.now())
    return refunded


def table_round_cancel(*, table_id: int, reason: str, actor: Any = None) -> tuple[Round, int] | None:
    """Operator: cancel the table's live round (``round_cancel``); None when no round is live."""
    live = live_round(table_id)
    if live is None:
        return None
    return live, round_cancel(round_id=live.pk, reason=reason, actor=actor)
