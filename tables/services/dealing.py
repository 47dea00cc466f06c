"""Where a table's cards come from: the one seam between the server's shoe and a live dealer (docs/rules.md,
"Live dealer tables"; docs/api.md, "Dealer's console").

Everything else is one path for both: the same rounds, windows, bets, limits, settlement, roads, events and
bet record. A table is dealt by a :class:`CardSource`:

- :class:`ServerShoe` (``Table.dealing == "shoe"``): the server shuffles a seeded shoe, burns, and the ticker
  deals each card when it is due (``Table.deal_interval_ms`` apart);
- :class:`LiveShoe` (``"live"``): a dealer shuffles a physical shoe and scans each card at the dealer's console
  (``card_scan``); the ticker only reveals a complete round, and pauses one whose dealer goes silent.

The dealer's procedures, each a service here: the new shoe's burn card (``card_scan`` while the shoe waits for
it) and its confirmation (``burn_confirm``); ``cut_card_out``; ``supervisor_call`` (the round pauses, players are
told the supervisor is on the way, the live floor shows the call); the supervisor's ``supervisor_resume`` and
``supervisor_void`` (cancel and refund), signed in as themselves; ``shift_take`` (the dealer on shift). Every
one is audited with who and why. A scan the shoe cannot take is refused with a precise code and deals nothing:
a card is never guessed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from django.db import IntegrityError, transaction
from django.utils import timezone

from baccarat_site.audit import audit
from baccarat_site.errors import DomainError
from tables import engine
from tables.events import table_event
from tables.models import Bet, Round, Shoe, SupervisorCall, Table
from tables.selectors.tables import dealer_info, previous_shoe_info
from tables.services.controls import round_cancel, table_pause, table_resume
from tables.services.sources import DealingRefused, NotLive, ShoeStates, shoe_state, source_for
from tables.services.transitions import (
    live_round,
    round_complete,
    round_deal_card,
    round_reveal,
    round_start_dealing,
    set_next_action,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    Actor = User | AnonymousUser

#: How long a live round's console may stay disconnected before the round pauses and the supervisor is called
#: (a reload of the console page reconnects well within it).
CONSOLE_GRACE_SECONDS = 5


class NotADealer(DomainError):
    code = "not_dealer"
    status = 403


# ── who may deal ────────────────────────────────────────────────────────────


def may_deal(user: User | AnonymousUser | None) -> bool:
    """Staff in the Dealers group (``tables.deal_table``), or a supervisor (``tables.supervise_table``): who may open
    the console and take a shift. Dealing itself is for the dealer on shift only (:func:`_live_table`)."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.is_staff
        and (user.has_perm("tables.deal_table") or user.has_perm("tables.supervise_table"))
    )


def may_supervise(user: User | AnonymousUser | None) -> bool:
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.has_perm("tables.supervise_table")
    )


def may_attend(user: User | AnonymousUser | None, table_id: int) -> bool:
    """Whether ``user`` may hold the table's console socket (and so be the console whose loss pauses a round): the
    table's dealer on shift, or a supervisor."""
    if not may_deal(user):
        return False
    return may_supervise(user) or Table.objects.filter(pk=table_id, dealer_id=cast("User", user).pk).exists()


def _staff(actor: Actor, *, supervise: bool = False) -> User:
    """The signed-in staff member allowed to act (a dealer, or a supervisor for ``supervise``), else NotADealer."""
    if not (may_supervise(actor) if supervise else may_deal(actor)):
        raise NotADealer(
            "Only a supervisor may do this." if supervise else "Only staff in the Dealers group may deal.",
            code="not_supervisor" if supervise else "not_dealer",
        )
    return cast("User", actor)


def _live_table(table_id: int, actor: Actor, *, supervise: bool = False) -> tuple[Table, User]:
    """The live table, locked, and the staff member acting; refuses a non-staff user, anyone but the dealer on shift
    (a supervisor who deals takes the shift first: audited, and the recall names who dealt), a table dealt by the
    shoe."""
    staff = _staff(actor, supervise=supervise)
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise DomainError(f"No table {table_id}.", code="not_found", status=404)
    if not table.is_live:
        raise NotLive(f"{table.name} is dealt by the server's shoe, not by a dealer.")
    if not supervise and table.dealer_id != staff.pk:
        raise NotADealer(f"You are not the dealer on shift at {table.name}: take the shift first.", code="not_on_shift")
    return table, staff


def _active_shoe(table_id: int) -> Shoe | None:
    return Shoe.objects.select_for_update().filter(table_id=table_id, finished_at__isnull=True).first()


def _save_state(shoe: Shoe, state: ShoeStates, **fields: Any) -> None:
    if Shoe.objects.filter(pk=shoe.pk, state=shoe.state).update(state=state.to_dict(), **fields) != 1:
        raise DealingRefused("The shoe changed meanwhile: scan again.", code="rescan")


# ── the dealer's console ────────────────────────────────────────────────────


@transaction.atomic
def shift_take(*, table_id: int, actor: Actor, now: datetime | None = None) -> Table:
    """The dealer at the console becomes the table's dealer on shift (a rotation), audited; a supervisor who is to
    deal takes the shift the same way (the audit says so). Not in the middle of a deal: the round being dealt is
    finished by the dealer who started it, unless it is paused for the supervisor (the dealer is gone: another
    takes over, and a third person resumes it)."""
    staff = _staff(actor)
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise DomainError(f"No table {table_id}.", code="not_found", status=404)
    if not table.is_live:
        raise NotLive(f"{table.name} is dealt by the server's shoe, not by a dealer.")
    if table.dealer_id == staff.pk:
        return table
    dealing = Round.objects.filter(table_id=table_id, state=Round.State.DEALING).exclude(cards=[]).exists()
    if dealing:
        raise DealingRefused("A round is being dealt: take the shift once it has its result.", code="round_dealing")
    before = table.dealer.get_username() if table.dealer is not None else None
    Table.objects.filter(pk=table_id).update(dealer=staff, console_lost_at=None)
    audit(
        actor=staff,
        action="table.dealer",
        target=table,
        reason="shift" if staff.has_perm("tables.deal_table") else "shift taken by a supervisor",
        before={"dealer": before},
        after={"dealer": staff.get_username()},
    )
    table_event(table_id, {"type": "dealer.changed", "table_id": table_id, "dealer": dealer_info(staff)})
    table.dealer = staff
    return table


@transaction.atomic
def card_scan(
    *,
    table_id: int,
    code: str,
    actor: Actor,
    round_id: int | None = None,
    position: int | None = None,
    key: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A card the dealer on shift scanned (or picked): the new shoe's burn card, or the next card of the round.

    A scan names what it is for, so that a retry (the scanner's, or the console's after a lost answer) deals
    nothing twice: ``round_id`` and ``position`` (1-based deal order), and/or ``key``, an idempotency key kept
    with the card. A repeat of a scan already dealt (the same key, or the same card at the same position of the
    same round) answers the first answer and deals nothing; the same key or position with another card is
    refused (``idempotency_conflict``, ``position_taken``); a position that is not the next one, or a round that
    is not the one being dealt, is refused (``wrong_position``, ``round_changed``).

    Refused too, with nothing dealt, when the code is not a card (``rescan``), the shoe cannot hold it
    (``card_impossible``, ``shoe_empty``), betting is still open (``betting_open``), the hand is complete
    (``hand_complete``), the round or table is paused (``paused``), or there is no round to deal
    (``no_round``). Returns ``{"burn": …}`` or ``{"dealt": …}`` (the card entry: hand, card, position, scan time,
    who scanned it, its key).
    """
    now = now or timezone.now()
    table, staff = _live_table(table_id, actor)
    try:
        card = engine.Card.parse(str(code))
    except ValueError:
        raise DealingRefused(f"{str(code)[:12]!r} is not a card: scan again.", code="rescan") from None
    if key is not None:
        repeat = _scanned_with_key(table_id, key, card)
        if repeat is not None:
            return repeat
    if round_id is not None and position is not None:
        repeat = _scanned_at(table_id, round_id, position, card)
        if repeat is not None:
            return repeat
    if table.status == Table.Status.PAUSED:
        raise DealingRefused("The table is paused: wait for the supervisor.", code="paused")
    shoe = _active_shoe(table_id)
    if shoe is None:
        raise DealingRefused("There is no shoe at this table yet.", code="no_shoe")
    state = shoe_state(shoe)
    if isinstance(state, engine.LiveShoeState) and not state.burned:
        if state.burn_card:
            if state.burn_card == str(card):  # the burn card's scan, repeated before the burn is confirmed
                return {"burn": {"card": state.burn_card, "count": state.burn_count}}
            raise DealingRefused(
                f"The burn card is {state.burn_card}: burn {state.burn_count} card(s) and confirm.", code="burn_done"
            )
        if round_id is not None:
            raise DealingRefused("The new shoe waits for its burn card, not a round's card.", code="wrong_position")
        return {"burn": _burn_scan(table, shoe, state, card)}
    round_ = live_round(table_id)
    if round_ is None:
        raise DealingRefused("No round is waiting for cards.", code="no_round")
    if round_id is not None and round_id != round_.pk:
        raise DealingRefused(
            f"Round {round_id} is not the round being dealt (round {round_.number} is): nothing was dealt.",
            code="round_changed",
        )
    if round_.state in (Round.State.BETTING,):
        raise DealingRefused("Betting is still open: deal when the window closes.", code="betting_open")
    if round_.state == Round.State.PAUSED:
        raise DealingRefused("The round is paused: wait for the supervisor.", code="paused")
    if round_.state == Round.State.CLOSED:
        round_start_dealing(round_id=round_.pk, now=now)
        round_.refresh_from_db()
    if round_.state != Round.State.DEALING:
        raise DealingRefused("The hand is complete: no more cards for this round.", code="hand_complete")
    next_position = len(round_.cards) + 1
    if position is not None and position != next_position:
        raise DealingRefused(
            f"The next card is card {next_position} of the round, not card {position}: nothing was dealt.",
            code="wrong_position",
        )
    entry = round_deal_card(
        round_id=round_.pk,
        position=next_position,
        card=card,
        now=now,
        scan={"scanned_by": staff.pk, "scanned_by_name": staff.get_username(), "key": key},
    )
    if entry is None:
        raise DealingRefused("The hand is complete: no more cards for this round.", code="hand_complete")
    return {"dealt": entry}


#: How many of a table's latest rounds a repeated scan's key is looked for in (a retry comes within seconds; a round
#: that ended is still found, so a retry after the result is answered, not dealt into the next round).
KEY_LOOKBACK_ROUNDS = 3


def _scanned_with_key(table_id: int, key: str, card: engine.Card) -> dict[str, Any] | None:
    """The first answer of the scan sent with ``key``, when one of the table's latest rounds holds it."""
    for cards in (
        Round.objects.filter(table_id=table_id).order_by("-pk").values_list("cards", flat=True)[:KEY_LOOKBACK_ROUNDS]
    ):
        for entry in cards or []:
            if entry.get("key") == key:
                if entry["card"] != str(card):
                    raise DealingRefused(
                        f"This scan's key was already used for {entry['card']}: nothing was dealt.",
                        code="idempotency_conflict",
                    )
                return {"dealt": entry}
    return None


def _scanned_at(table_id: int, round_id: int, position: int, card: engine.Card) -> dict[str, Any] | None:
    """The first answer when card ``position`` of ``round_id`` is dealt already and is ``card``; refused when it is
    another card; None when that position is still to be dealt."""
    if position < 1:
        raise DealingRefused("A card's position is 1 or more (deal order).", code="wrong_position")
    cards = Round.objects.filter(pk=round_id, table_id=table_id).values_list("cards", flat=True).first()
    if cards is None:
        raise DealingRefused(f"There is no round {round_id} at this table.", code="round_changed")
    if position > len(cards):
        return None
    entry = cards[position - 1]
    if entry["card"] != str(card):
        raise DealingRefused(
            f"Card {position} of this round is {entry['card']} already: nothing was dealt.", code="position_taken"
        )
    return {"dealt": entry}


def _burn_scan(table: Table, shoe: Shoe, state: engine.LiveShoeState, card: engine.Card) -> dict[str, Any]:
    try:
        count = state.scan_burn(card)
    except engine.CardRefused as refused:
        raise DealingRefused(refused.detail, code=refused.code) from None
    _save_state(shoe, state, burn_card=str(card), burn_count=count)
    table_event(
        table.pk,
        {
            "type": "shoe.shuffling",
            "table_id": table.pk,
            "shoe_number": shoe.number,
            "burn_card": str(card),
            "burn_count": count,
            "cards_left": state.cards_left,
        },
    )
    return {"card": str(card), "count": count}


@transaction.atomic
def burn_confirm(*, table_id: int, actor: Actor, now: datetime | None = None) -> dict[str, Any]:
    """The dealer has burned the cards the burn card called for, face down: the shoe is ready, a round opens."""
    now = now or timezone.now()
    table, staff = _live_table(table_id, actor)
    shoe = _active_shoe(table_id)
    if shoe is None:
        raise DealingRefused("There is no shoe at this table yet.", code="no_shoe")
    state = shoe_state(shoe)
    if not isinstance(state, engine.LiveShoeState):
        raise NotLive("This shoe was shuffled by the server.")
    if state.burned:
        return {"burned": state.burn_count, "cards_left": state.cards_left}
    try:
        state.confirm_burn()
    except engine.CardRefused as refused:
        raise DealingRefused(refused.detail, code=refused.code) from None
    _save_state(shoe, state)
    Table.objects.filter(pk=table_id).update(next_action_at=now)
    audit(
        actor=staff,
        action="shoe.burn",
        target=shoe,
        after={"burn_card": state.burn_card, "burned": state.burn_count},
        extra={"table_id": table_id},
    )
    _shuffled_event(table, shoe, state)
    return {"burned": state.burn_count, "cards_left": state.cards_left}


def _shuffled_event(table: Table, shoe: Shoe, state: ShoeStates) -> None:
    previous = previous_shoe_info(table.pk, shoe.number)
    table_event(
        table.pk,
        {
            "type": "shoe.shuffled",
            "table_id": table.pk,
            "shoe_number": shoe.number,
            "dealing": table.dealing,
            "burn_card": state.burn_card,
            "burn_count": state.burn_count,
            "commitment": shoe.commitment,
            "cards_left": state.cards_left,
            "previous_shoe": previous,
            "previous_seed": previous["server_seed"] if previous else None,
        },
    )


@transaction.atomic
def cut_card_out(*, table_id: int, actor: Actor, now: datetime | None = None) -> dict[str, Any]:
    """The cut card has appeared: the round in progress (or, between rounds, the last one) ends the shoe."""
    _table, staff = _live_table(table_id, actor)
    shoe = _active_shoe(table_id)
    if shoe is None:
        raise DealingRefused("There is no shoe at this table yet.", code="no_shoe")
    state = shoe_state(shoe)
    if not isinstance(state, engine.LiveShoeState) or not state.burned:
        raise DealingRefused("Burn the new shoe first.", code="burn_pending")
    if not state.mark_cut_card_out():
        return {"last_round": None}
    _save_state(shoe, state)
    round_ = live_round(table_id)
    if round_ is not None:
        Round.objects.filter(pk=round_.pk).update(is_last_of_shoe=True)
    else:
        Table.objects.filter(pk=table_id).update(next_action_at=now or timezone.now())
    audit(actor=staff, action="shoe.cut_card", target=shoe, extra={"table_id": table_id})
    table_event(
        table_id,
        {
            "type": "shoe.cut_card",
            "table_id": table_id,
            "shoe_number": shoe.number,
            "round_id": round_.pk if round_ is not None else None,
            "cards_left": state.cards_left,
        },
    )
    return {"last_round": round_.number if round_ is not None else None}


# ── the supervisor ──────────────────────────────────────────────────────────


def _open_call(table_id: int) -> SupervisorCall | None:
    return SupervisorCall.objects.select_for_update().filter(table_id=table_id, resolved_at__isnull=True).first()


def _call(table: Table, *, kind: str, reason: str, actor: User | None, now: datetime) -> dict[str, Any]:
    round_ = live_round(table.pk)
    call = _open_call(table.pk)
    if call is None:
        try:
            with transaction.atomic():
                call = SupervisorCall.objects.create(
                    table=table, round=round_, kind=kind, called_by=actor, reason=reason[:200], created_at=now
                )
        except IntegrityError:  # another call came first
            call = _open_call(table.pk)
    paused = table_pause(
        table_id=table.pk, reason=f"supervisor: {reason}"[:200], actor=actor, notice="supervisor", now=now
    )
    return {"call_id": call.pk if call else None, **paused}


@transaction.atomic
def supervisor_call(*, table_id: int, actor: Actor, reason: str = "", now: datetime | None = None) -> dict[str, Any]:
    """The dealer calls the supervisor: the table pauses (a round not yet dealing is cancelled and refunded, one
    being dealt waits), players see "Paused: the supervisor is on the way", the live floor shows the call."""
    now = now or timezone.now()
    table, staff = _live_table(table_id, actor)
    return _call(table, kind=SupervisorCall.Kind.CALLED, reason=reason or "dealer called", actor=staff, now=now)


def dealer_silent(*, table: Table, round_: Round, kind: str, now: datetime) -> dict[str, Any]:
    """The ticker's call for a live round whose dealer went quiet (no card in time, or the console gone)."""
    reason = (
        f"no card scanned within {table.dealer_timeout_seconds} s"
        if kind == SupervisorCall.Kind.SILENT
        else "the dealer's console disconnected mid-round"
    )
    return _call(table, kind=kind, reason=reason, actor=None, now=now)


def _resolve(table_id: int, actor: User, resolution: str, note: str, now: datetime) -> None:
    call = _open_call(table_id)
    if call is not None:
        SupervisorCall.objects.filter(pk=call.pk, resolved_at__isnull=True).update(
            resolved_at=now, resolved_by=actor, resolution=resolution, note=note[:200]
        )


class OwnRound(DomainError):
    code = "own_round"
    status = 403


def _not_involved(table_id: int, round_: Round | None, staff: User) -> None:
    """Four eyes on a live round: whoever dealt any of its cards, or raised the open call, does not answer it."""
    dealt = {entry.get("scanned_by") for entry in round_.cards or []} if round_ is not None else set()
    if round_ is not None and round_.dealer_id is not None:
        dealt.add(round_.dealer_id)
    if staff.pk in dealt:
        raise OwnRound("You dealt this round: another supervisor resumes or voids it.")
    call = _open_call(table_id)
    if call is not None and call.called_by_id == staff.pk:
        raise OwnRound("You called the supervisor: someone else answers the call.", code="own_call")


@transaction.atomic
def supervisor_resume(*, table_id: int, actor: Actor, reason: str, now: datetime | None = None) -> dict[str, Any]:
    """The supervisor resumes a paused live table: a started round is completed from its persisted cards when
    dealing resumes; otherwise the next round opens. Audited with who and why. Never by whoever dealt the round
    or raised the call."""
    now = now or timezone.now()
    table, staff = _live_table(table_id, actor, supervise=True)
    if not reason.strip():
        raise DomainError("Say why the table may go on.", code="reason_required")
    _not_involved(table_id, live_round(table_id), staff)
    _resolve(table_id, staff, SupervisorCall.Resolution.RESUMED, reason, now)
    Table.objects.filter(pk=table_id).update(console_lost_at=None)
    return table_resume(table_id=table.pk, reason=reason, actor=staff, now=now)


@transaction.atomic
def supervisor_void(
    *, table_id: int, actor: Actor, reason: str, round_id: int | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The supervisor voids the live round named ``round_id`` (a dealt card cannot be undone any other way): it is
    cancelled and every stake refunded, audited, and the table goes on with its next round.

    A void names its round and touches no other: when ``round_id`` is not the live round, a repeat of a void
    already done answers the first answer again (``refunded`` counted from the refunds made), a settled round is
    refused (``round_has_result``) and the next round is never touched (``round_changed``). Never by whoever dealt
    the round or raised the call."""
    now = now or timezone.now()
    _table, staff = _live_table(table_id, actor, supervise=True)
    if not reason.strip():
        raise DomainError("Say why the round is voided.", code="reason_required")
    round_ = live_round(table_id)
    if round_id is not None and (round_ is None or round_.pk != round_id):
        return _void_repeat(table_id, round_id)
    if round_ is None:
        raise DealingRefused("No round to void.", code="no_round")
    if round_.state not in (Round.State.PAUSED, Round.State.BETTING, Round.State.CLOSED, Round.State.DEALING):
        raise DealingRefused("The round has its result: it is settled as dealt.", code="round_has_result")
    _not_involved(table_id, round_, staff)
    if round_.state == Round.State.DEALING:
        table_pause(table_id=table_id, reason=f"void: {reason}"[:200], actor=staff, notice="supervisor", now=now)
    refunded = round_cancel(round_id=round_.pk, reason=f"void: {reason}", actor=staff, now=now, cause="supervisor")
    _resolve(table_id, staff, SupervisorCall.Resolution.CANCELLED, reason, now)
    Table.objects.filter(pk=table_id).update(console_lost_at=None)
    table_resume(table_id=table_id, reason=f"after void: {reason}", actor=staff, now=now)
    return {"round_id": round_.pk, "number": round_.number, "refunded": refunded, "repeat": False}


def _void_repeat(table_id: int, round_id: int) -> dict[str, Any]:
    """A void naming a round that is no longer live: the first answer when it was cancelled, else a refusal."""
    named = Round.objects.filter(pk=round_id, table_id=table_id).first()
    if named is None:
        raise DomainError(f"There is no round {round_id} at this table.", code="not_found", status=404)
    if named.state == Round.State.CANCELLED:
        # Every stake of a cancelled round was refunded: the first answer's count, and ``repeat`` to say so.
        refunded = Bet.objects.filter(round_id=named.pk).count()
        return {"round_id": named.pk, "number": named.number, "refunded": refunded, "repeat": True}
    if named.state == Round.State.SETTLED:
        raise DealingRefused("The round has its result: it is settled as dealt.", code="round_has_result")
    raise DealingRefused(  # pragma: no cover - a round that is neither live nor final does not exist
        f"Round {round_id} is not the live round: nothing was voided.", code="round_changed"
    )


# ── the console's presence, and the ticker's part ──────────────────────────


def console_connected(*, table_id: int) -> None:
    """A console socket for the table opened, or pinged: it is attended (a write only when it was marked lost)."""
    Table.objects.filter(pk=table_id, dealing=Table.Dealing.LIVE, console_lost_at__isnull=False).update(
        console_lost_at=None
    )


def console_disconnected(*, table_id: int, now: datetime | None = None) -> None:
    """A console socket closed: if it does not come back within ``CONSOLE_GRACE_SECONDS`` while a round is being
    dealt, the ticker pauses the round and calls the supervisor."""
    now = now or timezone.now()
    with transaction.atomic():
        updated = Table.objects.filter(pk=table_id, dealing=Table.Dealing.LIVE).update(console_lost_at=now)
        if updated and Round.objects.filter(table_id=table_id, state=Round.State.DEALING).exists():
            Table.objects.filter(pk=table_id).update(next_action_at=now + timedelta(seconds=CONSOLE_GRACE_SECONDS))


def dealing_step(*, table: Table, round_: Round, now: datetime) -> str | None:
    """The ticker's step for a round being dealt, by the table's card source: reveal a complete round; the
    server's shoe deals its next card; a live round waits for its dealer, and is paused (the supervisor called)
    when no card comes within ``dealer_timeout_seconds`` or its console stays away."""
    if round_complete(round_):
        return "result" if round_reveal(round_id=round_.pk, now=now) else None
    source = source_for(table)
    if source.automatic:
        dealt = round_deal_card(round_id=round_.pk, position=len(round_.cards) + 1, now=now)
        return "dealt" if dealt is not None else None
    # The dealer's time runs from the last card, or from when dealing started or last resumed after a pause,
    # whichever came last (the time the table stood paused is not the dealer's).
    last = round_.cards[-1].get("dealt_at") if round_.cards else None
    marks = [datetime.fromisoformat(last) if last else None, round_.dealing_started_at, round_.resumed_at]
    since = max((mark for mark in marks if mark is not None), default=now)
    silent_at = since + timedelta(seconds=table.dealer_timeout_seconds)
    lost_at = table.console_lost_at + timedelta(seconds=CONSOLE_GRACE_SECONDS) if table.console_lost_at else None
    if lost_at is not None and lost_at <= now:
        dealer_silent(table=table, round_=round_, kind=SupervisorCall.Kind.CONSOLE, now=now)
        return "paused"
    if silent_at <= now:
        dealer_silent(table=table, round_=round_, kind=SupervisorCall.Kind.SILENT, now=now)
        return "paused"
    set_next_action(table.pk, min(t for t in (silent_at, lost_at) if t is not None))
    return None
