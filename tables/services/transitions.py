"""The round state machine, shoes included: every transition, each a compare-and-set. The ticker
(``tables.services.ticker``) calls them when they are due; the operators' controls are
``tables.services.controls``.

One table, one live round at a time::

    (no live round) ──open──▶ betting ──close──▶ closed ──start──▶ dealing ──card…──▶ result ──settle──▶ settled
         ▲                                                              │                                  │
         └────────────── after result_seconds (new shoe first when the cut card came out) ◀────────────────┘

    betting/closed ──fault or operator pause──▶ cancelled (every stake refunded), table paused
    dealing/result ──fault or operator pause──▶ paused ──resume──▶ back where it was (from the persisted cards)
                                                 paused ──operator cancel──▶ cancelled (refunded)

Settlement comes ``Table.settle_delay_ms`` after the result (default 500 ms): the result reaches every
browser at the table before the settlement's database work and its one-per-player messages compete with
that broadcast; the money is still paid once, by one compare-and-set.

Deadlines live in PostgreSQL (``Table.next_action_at``), not in the scheduler:
``tables.services.ticker.table_step`` does at most one *due* step for one table, inside a
transaction holding the table's row lock (``SKIP LOCKED``: a concurrent
advance of the same table returns at once). Each step is a guarded
``filter(pk=…, state=…).update(…)`` with a row-count check, so a duplicate
beat tick, a late tick, a retried task or a restarted worker repeats nothing.

Cards: the next card is always the next card of the persisted shoe state
(its order comes from the shoe's secret seed), appended to ``Round.cards``
and saved with the advanced shoe state in one transaction; ``card.dealt`` is
announced only after that commit. A worker killed at any point therefore
resumes with exactly the same cards.

Faults: an unexpected exception in a step pauses the table. A round that had
not started dealing is cancelled and refunded; a round that had is paused and
waits for the operator (``table_resume`` continues from the persisted cards,
``tables.services.controls.round_cancel`` cancels and refunds). Database outages (``OperationalError``)
are not faults: nothing was committed, the next tick simply tries again.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from baccarat_site.clock import iso
from tables import engine
from tables.events import table_event
from tables.models import Round, Shoe, Table
from tables.selectors.tables import (
    cards_with_totals,
    previous_shoe_info,
    round_bet_types,
    round_limits,
    round_outcomes,
    round_paytable,
    shoe_roads,
)
from tables.services import risk, settlement
from tables.services.sources import shoe_state, source_for

logger = logging.getLogger(__name__)

LIVE = ~Q(state__in=Round.FINAL_STATES)
BEFORE_DEALING = (Round.State.BETTING, Round.State.CLOSED)
DEALT = (Round.State.DEALING, Round.State.RESULT)


class ShoeFault(Exception):
    """The shoe disagrees with what was persisted: never guess a card, pause instead."""


# ── helpers ─────────────────────────────────────────────────────────────────


def set_next_action(table_id: int, when: datetime | None) -> None:
    """When the ticker should next look at the table (None: not until someone asks)."""
    Table.objects.filter(pk=table_id).update(next_action_at=when)


def _to_ms(when: datetime) -> datetime:
    """Whole milliseconds, as the API shows times: what a browser counts down to is exactly what is stored."""
    return when.replace(microsecond=when.microsecond - when.microsecond % 1000)


def live_round(table_id: int, *, lock: bool = False) -> Round | None:
    """The table's one round that is neither settled nor cancelled, if any (``lock``: FOR UPDATE)."""
    rounds = Round.objects.filter(LIVE, table_id=table_id)
    if lock:
        rounds = rounds.select_for_update(of=("self",))
    return rounds.first()


# ── transitions (each one compare-and-set; a repeat returns None/False) ────


@transaction.atomic
def shoe_replace(*, table_id: int, now: datetime | None = None) -> Shoe | None:
    """Finish the table's active shoe (revealing its seed) and start a new one from the table's card source
    (``tables.services.sources``): the server's shoe is shuffled, committed and burned here; a live dealer's
    waits for its burn card at the console (players are told the dealer is shuffling).

    Only when there is no live round and the active shoe is missing or has shown its cut card.
    """
    now = now or timezone.now()
    table = Table.objects.select_related("variant").get(pk=table_id)
    if Round.objects.filter(LIVE, table_id=table_id).exists():
        return None
    old = Shoe.objects.filter(table_id=table_id, finished_at__isnull=True).first()
    if old is not None:
        if not shoe_state(old).is_last_round:
            return None
        if Shoe.objects.filter(pk=old.pk, finished_at__isnull=True).update(finished_at=now) != 1:
            return None
    number = (Shoe.objects.filter(table_id=table_id).aggregate(n=Max("number"))["n"] or 0) + 1
    state, fields = source_for(table).new_shoe(table.variant)
    try:
        with transaction.atomic():
            shoe = Shoe.objects.create(table_id=table_id, number=number, state=state.to_dict(), **fields)
    except IntegrityError:  # another runner shuffled first
        transaction.set_rollback(True)
        return None
    set_next_action(table_id, now)
    previous = previous_shoe_info(table_id, number)
    table_event(
        table_id,
        {
            # A live dealer's shoe is announced as shuffled once its burn is done (tables.services.dealing).
            "type": "shoe.shuffled" if state.ready else "shoe.shuffling",
            "table_id": table_id,
            "shoe_number": shoe.number,
            "dealing": table.dealing,
            "burn_card": shoe.burn_card,
            "burn_count": shoe.burn_count,
            "commitment": shoe.commitment,
            "cards_left": state.cards_left,
            "previous_shoe": previous,
            "previous_seed": previous["server_seed"] if previous else None,
        },
    )
    return shoe


@transaction.atomic
def round_open(*, table_id: int, now: datetime | None = None) -> Round | None:
    """Open the next round's betting window in the active shoe (none while another round is live)."""
    now = _to_ms(now or timezone.now())
    table = Table.objects.select_related("variant").get(pk=table_id)
    if table.status != Table.Status.OPEN or Round.objects.filter(LIVE, table_id=table_id).exists():
        return None
    shoe = Shoe.objects.filter(table_id=table_id, finished_at__isnull=True).first()
    if shoe is None:
        return None
    state = shoe_state(shoe)
    if state.is_last_round or not state.ready:  # the cut card is out, or a live shoe waits for its burn
        return None
    number = (shoe.rounds.aggregate(n=Max("number"))["n"] or 0) + 1
    try:
        with transaction.atomic():
            round_ = Round.objects.create(
                table=table,
                shoe=shoe,
                number=number,
                state=Round.State.BETTING,
                opens_at=now,
                closes_at=now + timedelta(seconds=table.betting_seconds),
                # Only the bets that can win with this shoe's decks, whatever the variant says now.
                terms=table.terms(decks=shoe.decks),
            )
    except IntegrityError:  # one live round per table / one number per shoe: another runner opened it
        transaction.set_rollback(True)
        return None
    set_next_action(table_id, round_.closes_at)
    table_event(
        table_id,
        {
            "type": "round.opened",
            "table_id": table_id,
            "round_id": round_.pk,
            "number": round_.number,
            "shoe_number": shoe.number,
            # The pace of this round's deal, so a page times its card reveal to it (docs/table-client.md).
            "deal_interval_ms": table.deal_interval_ms,
            "opens_at": iso(round_.opens_at),
            "closes_at": iso(round_.closes_at),
            "betting_seconds": table.betting_seconds,
            "server_time": iso(now),
            "bet_types": round_bet_types(round_),
            "limits": round_limits(round_),
            # The round's own paytable (its terms): the spots' labels for this round, whatever the variant says now.
            **round_paytable(round_),
        },
    )
    return round_


@transaction.atomic
def round_close(*, round_id: int, now: datetime | None = None) -> bool:
    """betting → closed, once ``closes_at`` has passed: no more bets."""
    now = now or timezone.now()
    updated = Round.objects.filter(pk=round_id, state=Round.State.BETTING, closes_at__lte=now).update(
        state=Round.State.CLOSED, closed_at=now
    )
    if updated != 1:
        return False
    round_ = Round.objects.get(pk=round_id)
    set_next_action(round_.table_id, now)
    risk.risk_scan_later(round_id=round_id)  # after the commit, in a task: the bets are final now
    table_event(
        round_.table_id,
        {
            "type": "round.closed",
            "table_id": round_.table_id,
            "round_id": round_id,
            "number": round_.number,
            "closed_at": iso(now),
        },
    )
    return True


@transaction.atomic
def round_start_dealing(*, round_id: int, now: datetime | None = None) -> bool:
    """closed → dealing. The shoe must be readable first: a fault here is still before dealing."""
    now = now or timezone.now()
    round_ = Round.objects.select_related("shoe", "table").get(pk=round_id)
    shoe_state(round_.shoe)
    # dealer: a live table's dealer on shift (None at a table dealt by the server's shoe).
    updated = Round.objects.filter(pk=round_id, state=Round.State.CLOSED).update(
        state=Round.State.DEALING, dealing_started_at=now, dealer=round_.table.dealer_id
    )
    if updated != 1:
        return False
    set_next_action(round_.table_id, now)
    return True


def _dealt(round_: Round) -> list[engine.Card]:
    """The round's cards in deal order, checked to follow the rules of the deal (else ShoeFault: never guess)."""
    dealt = [engine.Card.parse(c["card"]) for c in round_.cards]
    for i, stored in enumerate(round_.cards):
        if engine.next_hand(dealt[:i]) != stored["hand"]:
            raise ShoeFault(f"round {round_.pk}: stored cards do not follow the rules of the deal")
    return dealt


def round_complete(round_: Round) -> bool:
    """Every card the rules call for has been dealt."""
    return len(round_.cards) >= 4 and engine.next_hand(_dealt(round_)) is None


@transaction.atomic
def round_deal_card(
    *,
    round_id: int,
    position: int,
    card: engine.Card | None = None,
    now: datetime | None = None,
    scan: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Deal card number ``position`` (1-based, deal order) of a dealing round, if it is the next one and needed.

    The card comes from the table's source (``tables.services.sources``): the next card of the server's persisted
    shoe, or ``card``, the one a live dealer scanned, checked against what the shoe can hold (refused with
    ``DealingRefused``, nothing dealt). It is saved on the round and the shoe state advanced in this transaction;
    ``card.dealt`` goes out after commit. Returns the card entry, or None (already dealt, not dealing, or the hand
    is complete). ``scan``: a live dealer's scan facts kept with the card (who scanned it, the scan's key).
    """
    now = now or timezone.now()
    round_ = Round.objects.select_related("table").get(pk=round_id)
    if round_.state != Round.State.DEALING or len(round_.cards) != position - 1:
        return None
    dealt = _dealt(round_)
    hand = engine.next_hand(dealt)
    if hand is None:
        return None
    shoe = Shoe.objects.select_for_update().get(pk=round_.shoe_id)
    state = shoe_state(shoe)
    state.round_number = round_.number
    source = source_for(round_.table)
    card = source.take(state, card)
    # dealt_at: when the card was dealt (a live table's scan time), kept with it for a dispute and the recall.
    entry = {"hand": hand, "card": str(card), "position": position, "dealt_at": iso(now), **(scan or {})}
    cards = [*round_.cards, entry]
    complete = engine.next_hand([*dealt, card]) is None
    updated = Round.objects.filter(pk=round_id, state=Round.State.DEALING, cards=round_.cards).update(
        cards=cards, is_last_of_shoe=round_.is_last_of_shoe or state.is_last_round
    )
    if updated != 1:
        return None
    if Shoe.objects.filter(pk=shoe.pk, state=shoe.state).update(state=state.to_dict()) != 1:
        transaction.set_rollback(True)
        return None
    set_next_action(round_.table_id, source.after_card(round_.table, now, complete))
    totals = cards_with_totals(cards)[-1]["totals"]
    table_event(
        round_.table_id,
        {
            "type": "card.dealt",
            "table_id": round_.table_id,
            "round_id": round_id,
            "number": round_.number,
            "hand": hand,
            "card": str(card),
            "position": position,
            # The round's last card (the third-card rule needs no more): the one a player may squeeze.
            "last": complete,
            "totals": totals,
            "player_total": totals["player"],
            "banker_total": totals["banker"],
            "cards_left": state.cards_left,
            "dealt_at": entry["dealt_at"],
        },
    )
    return entry


@transaction.atomic
def round_reveal(*, round_id: int, now: datetime | None = None) -> bool:
    """dealing → result once every card the rules call for is dealt: totals, winner, flags, roads."""
    now = now or timezone.now()
    round_ = Round.objects.select_related("shoe", "table").get(pk=round_id)
    if round_.state != Round.State.DEALING:
        return False
    if not round_complete(round_):
        return False
    result = engine.deal_round(_dealt(round_))
    updated = Round.objects.filter(pk=round_id, state=Round.State.DEALING, cards=round_.cards).update(
        state=Round.State.RESULT,
        result_at=now,
        player_total=result.player_total,
        banker_total=result.banker_total,
        winner=result.winner,
        flags=result.flags(),
    )
    if updated != 1:
        return False
    # Pay a moment later: the result goes to the whole table first, before the settlement's database
    # work and its personal messages (one per player) compete with that broadcast.
    set_next_action(round_.table_id, now + timedelta(milliseconds=round_.table.settle_delay_ms))
    table_event(
        round_.table_id,
        {
            "type": "round.result",
            "table_id": round_.table_id,
            "round_id": round_id,
            "number": round_.number,
            "shoe_number": round_.shoe.number,
            "cards": cards_with_totals(round_.cards),
            "player_cards": [str(c) for c in result.player_cards],
            "banker_cards": [str(c) for c in result.banker_cards],
            "player_total": result.player_total,
            "banker_total": result.banker_total,
            "winner": result.winner,
            "flags": result.flags(),
            # Which spots won, pushed or lost, in each mode, by the round's own paytable (the page marks its spots
            # from it; the rules live in the engine, never in the page).
            "outcomes": round_outcomes(round_, result),
            "is_last_of_shoe": round_.is_last_of_shoe,
            "roads": shoe_roads(round_.shoe_id),
            "result_at": iso(now),
        },
    )
    return True


@transaction.atomic
def round_finish(*, round_id: int, now: datetime | None = None) -> bool:
    """result → settled through ``tables.services.settlement.round_settle`` (pays, tells each player); then the
    table waits ``result_seconds`` before the next round."""
    now = now or timezone.now()
    round_ = Round.objects.select_related("table").get(pk=round_id)
    if round_.state != Round.State.RESULT:
        return False
    settlement.round_settle(round_id=round_id, now=now)
    if not Round.objects.filter(pk=round_id, state=Round.State.SETTLED).exists():
        return False
    next_at = (round_.result_at or now) + timedelta(seconds=round_.table.result_seconds)
    set_next_action(round_.table_id, max(next_at, now))
    risk.risk_scan_later(round_id=round_id)  # the wins, after the commit, in a task
    return True
