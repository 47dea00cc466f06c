"""Paying a dealt round (``round_settle``) and refunding a cancelled one (``round_refund``), set-based.

A round's money moves in a fixed number of statements, whatever its size:

1. the compare-and-set on the round (``result → settled`` or ``live → cancelled``), which also takes the
   round row's lock, so bets in flight (they hold it ``FOR SHARE``) commit first and none slips in after;
2. one read of the round's kinds of bet: its distinct (type, mode) pairs, at most 14 × 2;
3. the engine prices each kind once against the round's own paytable (``terms``; ``tables.engine.bet_outcome``
   gives status and odds; a refund makes every kind ``refunded`` at odds 0), and one INSERT writes the round's
   outcomes (``tables.models.BetOutcome``, at most 28 rows): placement never writes them, and no bet row is
   written;
4. one read of what each bettor gets back: the round's bets joined to those outcomes, each bet's return by
   the one SQL payout rule (``tables.selectors.outcomes``, the same as ``tables.engine.bet_return``), summed
   per player;
5. one ledger transaction for the whole round (``wallets.services.wallets_credit_many``): a leg per paid
   player and one house leg, written with the new balances in one statement after one lock statement in
   primary-key order; when anyone is paid, the round records its id (``Round.settlement_transaction``, one
   UPDATE of the row the compare-and-set already holds).

All in one database transaction: a repeated or concurrent call finds the round no longer in the state it
expects and pays nothing. At commit the database checks that every bet of the round has its outcome (a
deferred constraint trigger on the round, migration 0014). Each player's ``round.settled`` message is built
and sent after the commit (:func:`settlement_announce`), so telling players never holds the round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

from django.db import transaction
from django.utils import timezone, translation

from baccarat_site import money
from baccarat_site.db import prepared_cursor
from tables import engine, events
from tables.labels import ROUND_NOTICES
from tables.models import Bet, Round
from tables.selectors.outcomes import bet_payout, payout_sql
from wallets import selectors as wallet_selectors
from wallets import services as wallet_services
from wallets.models import LedgerTransaction

logger = logging.getLogger(__name__)

#: The states a round can be cancelled from (everything but settled and cancelled).
LIVE_STATES = ("betting", "closed", "dealing", "result", "paused")

# The round's kinds of bet: at most 14 types × 2 modes, however many bets. (The hash aggregate reads the round's
# bets once through bet_round_user.)
_KINDS = "SELECT DISTINCT type, mode FROM tables_bet WHERE round_id = %s"

# The round's outcomes, one row per kind (tables.models.BetOutcome): written here and nowhere else.
_RECORD = """
INSERT INTO tables_betoutcome (round_id, type, mode, status, odds)
SELECT %(round)s, k.type, k.mode, k.status, k.odds
FROM unnest(%(types)s::varchar[], %(modes)s::varchar[], %(statuses)s::varchar[], %(odds)s::numeric[])
    AS k(type, mode, status, odds)
"""

# What each bettor gets back (zero for a player who lost everything): the round's bets against its outcomes,
# by the one payout rule. ``missing`` counts bets without an outcome, and refuses the whole settlement.
_RETURNS = """
SELECT b.user_id, count(*), COALESCE(SUM({payout}), 0), count(*) FILTER (WHERE o.status IS NULL)
FROM tables_bet b
LEFT JOIN tables_betoutcome o ON o.round_id = b.round_id AND o.type = b.type AND o.mode = b.mode
WHERE b.round_id = %(round)s
GROUP BY b.user_id
""".format(payout=payout_sql("b.amount", "o.status", "o.odds"))

# The plan the returns need, for that statement only. For a fresh round's bets the planner estimates one row
# (the statistics do not know the round yet), and with one row it would look each bet's outcome up in a nested
# loop and sort the round's bets to group them. Hashing is right for any round of more than a handful of bets.
_ROUND_SIZED_PLANS = "SET LOCAL enable_sort = off; SET LOCAL enable_nestloop = off"
_PLANS_BACK = "SET LOCAL enable_sort TO DEFAULT; SET LOCAL enable_nestloop TO DEFAULT"

#: BetOutcome.odds is numeric(12, 4): odds finer than that are refused rather than rounded.
_ODDS_PLACES = Decimal("0.0001")


@dataclass(frozen=True)
class Outcome:
    """What one kind of bet (bet type, mode) comes to on a round: the status and odds (x:1) of its bets."""

    bet_type: str
    mode: str
    status: str
    odds: Decimal


@dataclass(frozen=True)
class Settlement:
    """A round's money, moved: how many bets, and each paid player's new balance (all in the round's one
    ledger transaction)."""

    round_id: int
    table_id: int
    bets: int
    credits: dict[int, wallet_services.Credit]
    bettors: tuple[int, ...]


@transaction.atomic
def round_settle(*, round_id: int, now: datetime | None = None) -> int:
    """Pay every open bet of a dealt round exactly once (``result → settled``); return how many.

    Returns 0 when the round is not in ``result`` (already settled, or not dealt): the compare-and-set on
    the round's state makes repeated and concurrent calls harmless. ``now`` (default: the clock) stamps
    ``settled_at`` and the payout ledger rows.
    """
    now = now or timezone.now()
    if (
        Round.objects.filter(pk=round_id, state=Round.State.RESULT).update(state=Round.State.SETTLED, settled_at=now)
        != 1
    ):
        return 0
    table_id, terms, cards = Round.objects.values_list("table_id", "terms", "cards").get(pk=round_id)
    ordered = sorted(cards or [], key=lambda c: c["position"])
    result = engine.RoundResult.from_cards(
        [engine.Card.parse(c["card"]) for c in ordered if c["hand"] == "player"],
        [engine.Card.parse(c["card"]) for c in ordered if c["hand"] == "banker"],
    )
    # The round's own paytable: what every bet on it was confirmed at, whatever the variant says now.
    paytable = engine.Paytable.from_dict(terms["paytable"])

    facts = engine.payouts.facts_of(result)

    def price(bet_type: str, mode: str) -> Outcome:
        status, odds = engine.bet_outcome(bet_type, facts, mode, paytable)
        return Outcome(bet_type, mode, status, odds)

    settlement = _move_money(
        round_id=round_id, table_id=table_id, price=price, kind=LedgerTransaction.Kind.PAYOUT, now=now
    )
    return settlement.bets


@transaction.atomic
def round_refund(*, round_id: int, reason: str, cause: str = "operator", now: datetime | None = None) -> int:
    """Cancel a live round and refund every open stake exactly once; return how many bets were refunded.

    The money half of cancelling a round (``tables.services.controls.round_cancel`` is the operator's
    action, ``table_pause`` the fault path). Returns 0 when the round is already settled or cancelled.
    ``now`` (default: the clock) stamps ``cancelled_at`` and the refund ledger rows.
    """
    now = now or timezone.now()
    reason = reason[:200]
    updated = Round.objects.filter(pk=round_id, state__in=LIVE_STATES).update(
        state=Round.State.CANCELLED, cancelled_at=now, reason=reason
    )
    if updated != 1:
        return 0
    table_id = Round.objects.values_list("table_id", flat=True).get(pk=round_id)

    def refund(bet_type: str, mode: str) -> Outcome:
        return Outcome(bet_type, mode, Bet.Status.REFUNDED.value, Decimal(0))

    settlement = _move_money(
        round_id=round_id, table_id=table_id, price=refund, kind=LedgerTransaction.Kind.REFUND, now=now
    )
    # Players are told a fixed public message; the operator's (or a fault's) reason stays on the round (internal).
    with translation.override("en"):
        public = str(ROUND_NOTICES["cancelled"])
    # ``cause`` (tables.selectors.tables.ROUND_CAUSES): who or what stopped it, as a code players are told.
    events.table_event(table_id, {"type": "round.cancelled", "round_id": round_id, "reason": public, "cause": cause})
    return settlement.bets


def _move_money(
    *, round_id: int, table_id: int, price: Callable[[str, str], Outcome], kind: str, now: datetime
) -> Settlement:
    """Steps 2–5 of the module docstring, inside the caller's transaction; the announcement after commit."""
    with prepared_cursor() as cursor:
        cursor.execute(_KINDS, [round_id])
        kinds = cast("list[tuple[str, str]]", cursor.fetchall())
        if not kinds:
            return Settlement(round_id=round_id, table_id=table_id, bets=0, credits={}, bettors=())
        outcomes = [price(bet_type, mode) for bet_type, mode in sorted(kinds)]
        for o in outcomes:
            if o.odds != o.odds.quantize(_ODDS_PLACES):
                raise ValueError(f"round {round_id}: odds {o.odds} for {o.bet_type} are finer than 1/10,000")
        cursor.execute(
            _RECORD,
            {
                "round": round_id,
                "types": [o.bet_type for o in outcomes],
                "modes": [o.mode for o in outcomes],
                "statuses": [o.status for o in outcomes],
                "odds": [o.odds for o in outcomes],
            },
        )
        cursor.execute(_ROUND_SIZED_PLANS)
        cursor.execute(_RETURNS, {"round": round_id})
        returns = cast("list[tuple[int, int, Decimal, int]]", cursor.fetchall())
        cursor.execute(_PLANS_BACK)
        missing = sum(count for *_user, count in returns)
        if missing:  # a bet placed while this ran: the round's lock makes it impossible
            raise RuntimeError(f"round {round_id}: {missing} bets without an outcome")
        paid = {user_id: total for user_id, _count, total, _missing in returns if total > 0}
    # The round's one ledger transaction, when anyone is paid; the round records it.
    txn = wallet_services.ledger_transaction_reserve() if paid else None
    if txn is not None:
        Round.objects.filter(pk=round_id).update(settlement_transaction_id=txn)
    expected = sum(count for _user, count, _total, _missing in returns)
    credits = wallet_services.wallets_credit_many(
        credits=paid,
        kind=kind,
        reference=f"round:{round_id}",
        transaction_id=txn,
        now=now,
    )
    settlement = Settlement(
        round_id=round_id,
        table_id=table_id,
        bets=expected,
        credits=credits,
        bettors=tuple(sorted(user_id for user_id, *_counts in returns)),
    )
    transaction.on_commit(lambda: settlement_announce(settlement))
    return settlement


def settlement_announce(settlement: Settlement) -> None:
    """After the commit: tell every bettor of the round what each bet came to and their balance
    (``round.settled``, docs/api.md). A failure is logged; the money is already paid."""
    try:
        events.user_events_send(_settled_messages(settlement))
    except Exception:  # the money is committed; a lost message is recovered by the next snapshot
        logger.exception("round %s: settlement messages not sent", settlement.round_id)


def _settled_messages(settlement: Settlement) -> list[tuple[str, dict[str, Any]]]:
    per_user: dict[int, list[dict[str, Any]]] = {}
    won: dict[int, Decimal] = {}
    rows = (
        Bet.objects.filter(round_id=settlement.round_id)
        .order_by("id")
        .values_list("id", "user_id", "type", "amount", "mode", "outcome__status", bet_payout())
    )
    for bet_id, user_id, bet_type, amount, mode, status, payout in rows:
        per_user.setdefault(user_id, []).append(
            {
                "id": bet_id,
                "type": bet_type,
                "amount": money.text(amount),
                "mode": mode,
                "status": status,
                "payout": money.text(payout or 0),
            }
        )
        won[user_id] = won.get(user_id, money.ZERO) + (payout or 0)
    balances = {user_id: credit.balance for user_id, credit in settlement.credits.items()}
    balances.update(wallet_selectors.balances_of(user_ids=[u for u in per_user if u not in balances]))
    return [
        (
            events.user_group(user_id),
            {
                "type": "round.settled",
                "round_id": settlement.round_id,
                "table_id": settlement.table_id,
                "bets": bets,
                "total_won": money.text(won[user_id]),
                "balance": money.text(balances.get(user_id, money.ZERO)),
            },
        )
        for user_id, bets in per_user.items()
    ]
