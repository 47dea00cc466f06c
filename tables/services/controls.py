"""The operators' controls (and the fault path): pause a table, resume it, cancel a round with refunds; close
a table at the end of its round or shoe, reopen it, retire it (and take it out of retirement); and the opening
hours that close and reopen a table by themselves.

Each is one transaction under the table's row lock, a guarded compare-and-set on the table's status, audited
(``baccarat_site.audit``: the operator, a command's OS user, or a fault, or nobody for the opening hours, with
the reason and the round concerned as ``round_id``), and announced to the table after commit. Cancelling moves
money through ``tables.services.settlement.round_refund``.

The operator's reason is internal: it goes to the audit trail and ``Table.status_reason`` (the admin). Players
are told a fixed public message (``tables.labels.STATUS_NOTICES``, by its code ``notice``), never the operator's
own words.

Table lifecycle (docs/api.md, "Table lifecycle")::

    open ──close (end of round | end of shoe)──▶ open, closing ──round/shoe ends──▶ closed ──retire──▶ retired
     ▲                                                                               │  ▲                  │
     └──────────────────────────────── reopen ◀──────────────────────────────────────┘  └──── un-retire ◀──┘

    open ──outside its opening hours, at the end of a round──▶ closed (by the hours) ──hours begin──▶ open
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone, translation

from baccarat_site.audit import audit
from baccarat_site.errors import DomainError
from tables.events import table_event
from tables.labels import STATUS_NOTICES
from tables.models import Round, Shoe, Table
from tables.selectors.tables import status_notice
from tables.services import settlement
from tables.services.sources import shoe_state
from tables.services.transitions import BEFORE_DEALING, DEALT, live_round

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def public_reason(code: str | None, table: Table | None = None) -> str | None:
    """The fixed public message of a status notice code, in English (events go to every player at once; pages
    translate the code): never the operator's own words."""
    if code is None:
        return None
    opens_at = table.opens_at.strftime("%H:%M") if table is not None and table.opens_at else ""
    with translation.override("en"):
        return str(STATUS_NOTICES[code]) % {"opens_at": opens_at}


logger = logging.getLogger(__name__)


@transaction.atomic
def table_pause(
    *,
    table_id: int,
    reason: str,
    fault: bool = False,
    actor: User | None = None,
    notice: str = "paused",
    now: datetime | None = None,
) -> dict[str, Any]:
    """Pause a table (operator, or a fault). docs/rules.md, "Disconnection and errors":

    - a round that has not started dealing (betting/closed) is cancelled and every stake refunded;
    - a round being dealt or awaiting settlement is paused and waits for ``table_resume`` or ``round_cancel``.

    No new round opens while the table is paused. Returns what was done; pausing a paused table changes nothing.
    ``notice`` is what players are told (``tables.labels.STATUS_NOTICES``: ``paused``, or ``supervisor`` at a live
    table waiting for its supervisor). ``now`` (default: the clock) stamps a cancelled round.
    """
    now = now or timezone.now()
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status != Table.Status.OPEN:  # paused already, or closed/retired: nothing is running
        return {"paused": False, "round_id": None, "round": None}
    round_ = live_round(table_id, lock=True)
    outcome: str | None = None
    if round_ is not None and round_.state in BEFORE_DEALING:
        try:
            with transaction.atomic():
                settlement.round_refund(
                    round_id=round_.pk, reason=reason, cause="fault" if fault else "paused", now=now
                )
            outcome = Round.State.CANCELLED
        except Exception:  # refund failed: hold the round for the operator instead of losing it
            logger.exception("round %s: cancel failed while pausing; pausing the round instead", round_.pk)
    if round_ is not None and outcome is None and round_.state in (*BEFORE_DEALING, *DEALT):
        updated = Round.objects.filter(pk=round_.pk, state=round_.state).update(
            state=Round.State.PAUSED, paused_from=round_.state, reason=reason
        )
        outcome = Round.State.PAUSED if updated == 1 else None
    Table.objects.filter(pk=table_id, status=Table.Status.OPEN).update(
        status=Table.Status.PAUSED,
        status_reason=reason,
        next_action_at=None,
        pause_notice="" if notice == "paused" else notice,
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
            "notice": notice,
            "reason": public_reason(notice),  # the operator's (or the fault's) own words stay internal
            "by": "fault" if fault else "operator",
            "round_id": round_.pk if round_ is not None else None,
            "round_number": round_.number if round_ is not None else None,
            "round_state": outcome,
        },
    )
    return {"paused": True, "round_id": round_.pk if round_ is not None else None, "round": outcome}


@transaction.atomic
def table_resume(
    *, table_id: int, reason: str = "", actor: User | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """Resume a paused table: a paused round continues from its persisted cards, else the next round opens
    (due at ``now``, default: the clock)."""
    now = now or timezone.now()
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status != Table.Status.PAUSED:
        return {"resumed": False, "round_id": None}
    Table.objects.filter(pk=table_id, status=Table.Status.PAUSED).update(
        status=Table.Status.OPEN, status_reason="", pause_notice="", next_action_at=now
    )
    round_ = live_round(table_id, lock=True)
    if round_ is not None and round_.state == Round.State.PAUSED:
        back_to = round_.paused_from if round_.paused_from in DEALT else None
        if back_to is None:  # paused before dealing (a refund that failed): only a cancel can end it
            Table.objects.filter(pk=table_id).update(
                status=Table.Status.PAUSED, status_reason=round_.reason, next_action_at=None
            )
            return {"resumed": False, "round_id": round_.pk}
        Round.objects.filter(pk=round_.pk, state=Round.State.PAUSED).update(
            state=back_to, paused_from="", reason="", resumed_at=now
        )
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
            "notice": status_notice(Table.objects.get(pk=table_id), now),
            "reason": None,  # the operator's words stay internal
            "round_id": round_.pk if round_ is not None else None,
        },
    )
    return {"resumed": True, "round_id": round_.pk if round_ is not None else None}


class RoundNotCancellable(DomainError):
    code = "round_not_cancellable"
    status = 409


@transaction.atomic
def round_cancel(
    *, round_id: int, reason: str, actor: User | None = None, now: datetime | None = None, cause: str = "operator"
) -> int:
    """Operator: cancel a live round and refund every stake (``tables.services.settlement.round_refund``).

    RULES: a round may be cancelled before it has started dealing, or once it is paused (a fault during
    dealing); a round being dealt or showing its result must be paused first. Raises RoundNotCancellable
    otherwise. Returns the number of bets refunded. An open table goes on with its next round; a paused one
    stays paused. ``now`` (default: the clock) stamps the cancellation and makes the next round due. ``cause``
    (``tables.selectors.tables.ROUND_CAUSES``): what players are told stopped it (``supervisor`` for a live
    round's void).
    """
    now = now or timezone.now()
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
    refunded = settlement.round_refund(round_id=round_id, reason=reason[:200], cause=cause, now=now)
    audit(
        actor=actor,
        action="round.cancel",
        target=round_,
        reason=reason,
        before={"state": round_.state},
        after={"state": Round.State.CANCELLED, "bets_refunded": refunded},
        extra={"round_id": round_.pk, "cause": cause},
    )
    Table.objects.filter(pk=round_.table_id, status=Table.Status.OPEN).update(next_action_at=now)
    return refunded


def table_round_cancel(
    *, table_id: int, reason: str, actor: User | None = None, now: datetime | None = None
) -> tuple[Round, int] | None:
    """Operator: cancel the table's live round (``round_cancel``); None when no round is live."""
    live = live_round(table_id)
    if live is None:
        return None
    return live, round_cancel(round_id=live.pk, reason=reason, actor=actor, now=now)


# ── closing, reopening, retiring; opening hours ─────────────────────────────


class TableRetired(DomainError):
    code = "table_retired"
    status = 409


class TableNotClosed(DomainError):
    code = "table_not_closed"
    status = 409


CLOSE_WHEN = (Table.CloseAfter.ROUND, Table.CloseAfter.SHOE)


def _shoe_done(table_id: int) -> bool:
    """The table's shoe has shown its cut card (its last round is dealt), or it has no active shoe."""
    shoe = Shoe.objects.filter(table_id=table_id, finished_at__isnull=True).first()
    return shoe is None or shoe_state(shoe).is_last_round


def _close_now(table: Table, *, now: datetime, by: str) -> bool:
    """Close a table that has no live round (compare-and-set from open or paused): no new round opens. A shoe
    that has shown its cut card is finished now, so its seed is revealed without waiting for a reopen."""
    closed = Table.objects.filter(pk=table.pk, status__in=[Table.Status.OPEN, Table.Status.PAUSED]).update(
        status=Table.Status.CLOSED,
        close_after="",
        closed_by=by,
        # Closed by its hours: the ticker looks again when they begin. Closed by an operator: only a reopen.
        next_action_at=table.next_opening(now) if by == Table.ClosedBy.HOURS else None,
    )
    if closed != 1:
        return False
    shoe = Shoe.objects.filter(table_id=table.pk, finished_at__isnull=True).first()
    if shoe is not None and shoe_state(shoe).is_last_round:
        Shoe.objects.filter(pk=shoe.pk, finished_at__isnull=True).update(finished_at=now)
    table.refresh_from_db()
    code = status_notice(table, now)
    table_event(
        table.pk,
        {
            "type": "table.closed",
            "table_id": table.pk,
            "notice": code,
            "reason": public_reason(code, table),
            "by": by,
            "opens_at": table.opens_at.strftime("%H:%M") if by == Table.ClosedBy.HOURS and table.opens_at else None,
        },
    )
    return True


@transaction.atomic
def table_close(
    *, table_id: int, when: str, reason: str, actor: User | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """Operator: close a table at the end of its current round (``when="round"``) or of its current shoe
    (``"shoe"``). The round under way (or every round left in the shoe) is played and settled as usual; then no
    new round opens and the table is ``closed``. With no round live (and, for ``"shoe"``, the shoe at its cut
    card) it closes at once. Closing a closed table changes nothing; a retired one raises TableRetired.

    Returns ``{"closed": closed now, "closing": waiting for the round or shoe to end}``. ``now`` defaults to the
    clock.
    """
    now = now or timezone.now()
    if when not in CLOSE_WHEN:
        raise DomainError(f"Close at the end of a round or of a shoe, not {when!r}.", code="invalid_close")
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status == Table.Status.RETIRED:
        raise TableRetired(f"Table {table.name} is retired.")
    if table.status == Table.Status.CLOSED:
        return {"closed": False, "closing": False}
    before = {"status": table.status, "close_after": table.close_after}
    round_ = live_round(table_id)
    if round_ is None and (when == Table.CloseAfter.ROUND or _shoe_done(table_id)):
        Table.objects.filter(pk=table_id).update(status_reason=reason)
        done = _close_now(table, now=now, by=Table.ClosedBy.OPERATOR)
        outcome = {"closed": done, "closing": False}
    else:
        updated = Table.objects.filter(pk=table_id, status__in=[Table.Status.OPEN, Table.Status.PAUSED]).update(
            close_after=when, status_reason=reason
        )
        outcome = {"closed": False, "closing": updated == 1}
        table.refresh_from_db()
        code = status_notice(table, now)
        table_event(
            table_id,
            {
                "type": "table.closing",
                "table_id": table_id,
                "close_after": when,
                "notice": code,
                "reason": public_reason(code, table),
                "round_id": round_.pk if round_ is not None else None,
            },
        )
    audit(
        actor=actor,
        action=f"table.close_after_{when}",
        target=table,
        reason=reason,
        before=before,
        after={
            "status": Table.Status.CLOSED if outcome["closed"] else table.status,
            "close_after": "" if outcome["closed"] else when,
        },
    )
    return outcome


def table_close_due(*, table_id: int, now: datetime) -> bool:
    """The ticker, between two rounds of an open table: close it if an operator's close is due (the round ended;
    for a shoe, the shoe has shown its cut card) or it is outside its opening hours. Run inside the ticker's
    transaction, which holds the table's row lock. True when it closed the table."""
    table = Table.objects.get(pk=table_id)
    if table.status != Table.Status.OPEN or live_round(table_id) is not None:
        return False
    if table.close_after == Table.CloseAfter.ROUND or (
        table.close_after == Table.CloseAfter.SHOE and _shoe_done(table_id)
    ):
        by, why = Table.ClosedBy.OPERATOR, f"closed at the end of the {table.close_after} as asked"
    elif not table.within_hours(now):
        by, why = Table.ClosedBy.HOURS, "outside its opening hours"
    else:
        return False
    if not _close_now(table, now=now, by=by):
        return False
    audit(
        actor=None,
        action="table.closed",
        target=table,
        reason=why,
        before={"status": Table.Status.OPEN, "close_after": table.close_after},
        after={"status": Table.Status.CLOSED, "close_after": "", "closed_by": by},
    )
    return True


def _reopen(table: Table, *, now: datetime, guard: dict[str, Any]) -> bool:
    reopened = Table.objects.filter(pk=table.pk, **guard).update(
        status=Table.Status.OPEN, close_after="", closed_by="", status_reason="", next_action_at=now
    )
    if reopened != 1:
        return False
    table_event(table.pk, {"type": "table.reopened", "table_id": table.pk, "notice": None, "reason": None})
    return True


@transaction.atomic
def table_reopen(
    *, table_id: int, reason: str, actor: User | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """Operator: a closed table opens its next round (its shoe goes on, or a new one is shuffled). On an open or
    paused table waiting to close, the close is called off. A retired table must be taken out of retirement
    first (TableRetired). Outside its opening hours a reopened table is closed again by its hours at once, and
    reopens when they begin: clear its hours to open it now.

    Returns ``{"reopened": …, "close_called_off": …}``. ``now`` defaults to the clock.
    """
    now = now or timezone.now()
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status == Table.Status.RETIRED:
        raise TableRetired(f"Table {table.name} is retired: take it out of retirement first.")
    before = {"status": table.status, "close_after": table.close_after, "closed_by": table.closed_by}
    if table.status == Table.Status.CLOSED:
        outcome = {
            "reopened": _reopen(table, now=now, guard={"status": Table.Status.CLOSED}),
            "close_called_off": False,
        }
    elif table.close_after:
        called_off = Table.objects.filter(pk=table_id, status=table.status, close_after=table.close_after).update(
            close_after="", status_reason="" if table.status == Table.Status.OPEN else table.status_reason
        )
        outcome = {"reopened": False, "close_called_off": called_off == 1}
        if called_off:
            table.refresh_from_db()
            code = status_notice(table, now)
            table_event(
                table_id,
                {"type": "table.reopened", "table_id": table_id, "notice": code, "reason": public_reason(code)},
            )
    else:
        return {"reopened": False, "close_called_off": False}
    audit(
        actor=actor,
        action="table.reopen",
        target=table,
        reason=reason,
        before=before,
        after={"status": Table.Status.OPEN if outcome["reopened"] else table.status, "close_after": ""},
    )
    return outcome


def table_reopen_due(*, table_id: int, now: datetime) -> bool:
    """The ticker: a table its opening hours closed reopens when they begin (inside the ticker's transaction)."""
    table = Table.objects.get(pk=table_id)
    if table.status != Table.Status.CLOSED or table.closed_by != Table.ClosedBy.HOURS or not table.within_hours(now):
        return False
    if not _reopen(table, now=now, guard={"status": Table.Status.CLOSED, "closed_by": Table.ClosedBy.HOURS}):
        return False
    audit(
        actor=None,
        action="table.reopened",
        target=table,
        reason="its opening hours began",
        before={"status": Table.Status.CLOSED, "closed_by": Table.ClosedBy.HOURS},
        after={"status": Table.Status.OPEN, "closed_by": ""},
    )
    return True


@transaction.atomic
def table_retire(*, table_id: int, reason: str, actor: User | None = None) -> bool:
    """Operator: retire a closed table. It disappears for players (lobby, table list, its page and socket); its
    rounds, bets and shoes stay in the records. Only a closed table can be retired (TableNotClosed); retiring a
    retired table changes nothing (False)."""
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.status == Table.Status.RETIRED:
        return False
    if table.status != Table.Status.CLOSED or live_round(table_id) is not None:
        raise TableNotClosed(f"Table {table.name} is {table.status}: close it first, then retire it.")
    updated = Table.objects.filter(pk=table_id, status=Table.Status.CLOSED).update(
        status=Table.Status.RETIRED, close_after="", next_action_at=None, status_reason=reason
    )
    if updated != 1:
        return False
    audit(
        actor=actor,
        action="table.retire",
        target=table,
        reason=reason,
        before={"status": Table.Status.CLOSED},
        after={"status": Table.Status.RETIRED},
    )
    table_event(table_id, {"type": "table.retired", "table_id": table_id, "notice": "closed", "reason": None})
    return True


@transaction.atomic
def table_unretire(*, table_id: int, reason: str, actor: User | None = None) -> bool:
    """Operator: take a retired table out of retirement. It comes back closed (by an operator): Reopen opens it.
    False when it was not retired."""
    reason = reason[:200]
    table = Table.objects.select_for_update().get(pk=table_id)
    updated = Table.objects.filter(pk=table_id, status=Table.Status.RETIRED).update(
        status=Table.Status.CLOSED, closed_by=Table.ClosedBy.OPERATOR, next_action_at=None, status_reason=reason
    )
    if updated != 1:
        return False
    audit(
        actor=actor,
        action="table.unretire",
        target=table,
        reason=reason,
        before={"status": Table.Status.RETIRED},
        after={"status": Table.Status.CLOSED},
    )
    return True
