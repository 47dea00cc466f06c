"""Paying a dealt round (``round_settle``) and refunding a cancelled one (``round_refund``), set-based.

A round's money moves in a fixed number of statements, whatever its size:

1. the compare-and-set on the round (``result → settled`` or ``live → cancelled``), which also takes the
   round row's lock, so bets in flight (they hold it ``FOR SHARE``) commit first and none slips in after;
2. the round's stakes (``tables.models.RoundStake``: one row per type, mode and amount bet on it, made by
   placement): a round of 10,000 bets has a few dozen, and the engine prices each once
   (``tables.engine.settle_outcome``) against the round's own paytable;
3. one read of what each bettor gets back, the round's bets against the priced stakes, refused if any bet
   of the round points at a stake that was not open; then one UPDATE recording each stake's outcome and
   payout (and, on a stake that pays, the round's ledger transaction if anyone is paid): every bet's outcome
   is its stake's, so the bets themselves are not written; refused unless it touches exactly the stakes that
   were open;
4. one ledger transaction for the whole round (``wallets.services.wallets_credit_many``): a leg per paid
   player and one house leg, written with the new balances in one statement after one lock statement in
   primary-key order.

All in one database transaction: a repeated or concurrent call finds the round no longer in the state it
expects and pays nothing. Each player's ``round.settled`` message is built and sent after the commit
(:func:`settlement_announce`), so telling players never holds the round.
"""

from __future__ import annotations

import logging
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
from wallets import selectors as wallet_selectors
from wallets import services as wallet_services
from wallets.models import LedgerTransaction

logger = logging.getLogger(__name__)

#: The states a round can be cancelled from (everything but settled and cancelled).
LIVE_STATES = ("betting", "closed", "dealing", "result", "paused")

# The round's kinds of bet (tables.models.RoundStake): a few dozen rows, however many bets point at them.
_STAKES = """
SELECT id, type, mode, amount FROM tables_roundstake
WHERE round_id = %s AND status = 'open'
ORDER BY id
"""

# Every kind's outcome, a few dozen rows: this is where the round's bets are settled.
_RECORD = """
UPDATE tables_roundstake AS rs
SET status = s.status, payout = s.payout, settlement_transaction_id = s.txn, settled_at = %(now)s
FROM unnest(%(ids)s::bigint[], %(statuses)s::varchar[], %(payouts)s::numeric[], %(txns)s::bigint[])
    AS s(id, status, payout, txn)
WHERE rs.id = s.id AND rs.round_id = %(round)s AND rs.status = 'open'
"""

# What each bettor gets back (zero for a player who lost everything): the round's bets against its priced
# stakes. ``stray`` counts bets of the round whose stake was not among them, and refuses the whole settlement.
_RETURNS = """
SELECT b.user_id, count(*), SUM(s.payout), count(*) FILTER (WHERE s.id IS NULL)
FROM tables_bet b
LEFT JOIN unnest(%(ids)s::bigint[], %(payouts)s::numeric[]) AS s(id, payout) ON s.id = b.round_stake_id
WHERE b.round_id = %(round)s
GROUP BY b.user_id
"""

# The plan the returns need, for that statement only. For a fresh round's bets the planner estimates one row
# (the statistics do not know the round yet), and with one row it would look each bet's stake up in a nested
# loop and sort the round's bets to group them. Hashing is right for any round of more than a handful of bets.
_ROUND_SIZED_PLANS = "SET LOCAL enable_sort = off; SET LOCAL enable_nestloop = off"
_PLANS_BACK = "SET LOCAL enable_sort TO DEFAULT; SET LOCAL enable_nestloop TO DEFAULT"


@dataclass(frozen=True)
class Outcome:
    """What one kind of stake (bet type, mode, amount) comes to: the bet's status and what it returns."""

    bet_type: str
    mode: str
    amount: Decimal
    status: str
    payout: Decimal


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
def round_settle(*, round_id: int) -> int:
    """Pay every open bet of a dealt round exactly once (``result → settled``); return how many.

    Returns 0 when the round is not in ``result`` (already settled, or not dealt): the compare-and-set on
    the round's state makes repeated and concurrent calls harmless.
    """
    now = timezone.now()
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

    def price(bet_type: str, mode: str, amount: Decimal) -> Outcome:
        status, payout = engine.settle_outcome(bet_type, amount, result, mode=mode, paytable=paytable)
        return Outcome(bet_type, mode, amount, status, payout)

    settlement = _move_money(
        round_id=round_id, table_id=table_id, price=price, kind=LedgerTransaction.Kind.PAYOUT, now=now
    )
    return settlement.bets


@transaction.atomic
def round_refund(*, round_id: int, reason: str, cause: str = "operator") -> int:
    """Cancel a live round and refund every open stake exactly once; return how many bets were refunded.

    The money half of cancelling a round (``tables.services.controls.round_cancel`` is the operator's
    action, ``table_pause`` the fault path). Returns 0 when the round is already settled or cancelled.
    """
    now = timezone.now()
    reason = reason[:200]
    updated = Round.objects.filter(pk=round_id, state__in=LIVE_STATES).update(
        state=Round.State.CANCELLED, cancelled_at=now, reason=reason
    )
    if updated != 1:
        return 0
    table_id = Round.objects.values_list("table_id", flat=True).get(pk=round_id)

    def refund(bet_type: str, mode: str, amount: Decimal) -> Outcome:
        return Outcome(bet_type, mode, amount, Bet.Status.REFUNDED.value, amount)

    settlement = _move_money(
        round_id=round_id, table_id=table_id, price=refund, kind=LedgerTransaction.Kind.REFUND, now=now
    )
    # Players are told a fixed public message; the operator's (or a fault's) reason stays on the round (internal).
    with translation.override("en"):
        public = str(ROUND_NOTICES["cancelled"])
    # ``cause`` (tables.selectors.tables.ROUND_CAUSES): who or what stopped it, as a code players are told.
    events.table_event(table_id, {"type": "round.cancelled", "round_id": round_id, "reason": public, "cause": cause})
    return settlement.bets


def _move_money(*, round_id: int, table_id: int, price: Any, kind: str, now: datetime) -> Settlement:
    """Steps 2–4 of the module docstring, inside the caller's transaction; the announcement after commit."""
    with prepared_cursor() as cursor:
        cursor.execute(_STAKES, [round_id])
        stakes = cast("list[tuple[int, str, str, Decimal]]", cursor.fetchall())
        if not stakes:
            return Settlement(round_id=round_id, table_id=table_id, bets=0, credits={}, bettors=())
        ids = [stake_id for stake_id, *_kind in stakes]
        outcomes = [price(bet_type, mode, amount) for _id, bet_type, mode, amount in stakes]
        cursor.execute(_ROUND_SIZED_PLANS)
        cursor.execute(_RETURNS, {"ids": ids, "payouts": [o.payout for o in outcomes], "round": round_id})
        returns = cast("list[tuple[int, int, Decimal, int]]", cursor.fetchall())
        cursor.execute(_PLANS_BACK)
        stray = sum(count for *_user, count in returns)
        if stray:
            raise RuntimeError(f"round {round_id}: {stray} bets on stakes that were not open")
        paid = {user_id: total for user_id, _count, total, _stray in returns if total > 0}
        # The round's one ledger transaction, when anyone is paid: every stake that pays records it. (Stakes that
        # pay may still pay nobody, e.g. a stake without bets put there by hand: then there is no transaction.)
        txn = wallet_services.ledger_transaction_reserve() if paid else None
        cursor.execute(
            _RECORD,
            {
                "ids": ids,
                "statuses": [o.status for o in outcomes],
                "payouts": [o.payout for o in outcomes],
                "txns": [txn if o.payout > 0 else None for o in outcomes],
                "round": round_id,
                "now": now,
            },
        )
        if cursor.rowcount != len(stakes):
            raise RuntimeError(f"round {round_id}: recorded {cursor.rowcount} of {len(stakes)} open stakes")
    expected = sum(count for _user, count, _total, _stray in returns)
    credits = wallet_services.wallets_credit_many(
        credits=paid,
        kind=kind,
        reference=f"round:{round_id}",
        transaction_id=txn,
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
        .values_list("id", "user_id", "type", "amount", "mode", "round_stake__status", "round_stake__payout")
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
