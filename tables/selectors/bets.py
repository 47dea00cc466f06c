"""Reads of bets: a player's bet record, and a round with the caller's own bets.

Every query here is filtered by the caller: nobody reads another player's bets.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from django.db.models import QuerySet

from baccarat_site.clock import iso
from baccarat_site.errors import NotFound
from tables.models import Bet, Round
from tables.selectors.outcomes import payout_sql
from tables.selectors.tables import round_detail
from wallets.selectors import Reconciliation, ledger_reconciliation

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MAX_ID = 2**63 - 1


def bet_list(
    *,
    user: User,
    table_id: int | None = None,
    bet_type: str | None = None,
    result: str | None = None,
    placed_from: datetime | None = None,
    placed_before: datetime | None = None,
    placed_until: datetime | None = None,
) -> QuerySet[Bet]:
    """The player's bet record, newest first, with its table and round.

    ``placed_from`` is inclusive; ``placed_before`` exclusive (a whole "to" day),
    ``placed_until`` inclusive (a "to" moment).
    """
    bets = Bet.objects.filter(user=user).select_related("round__table", "outcome").order_by("-placed_at", "-id")
    if table_id is not None:
        bets = bets.filter(round__table_id=table_id)
    if bet_type:
        bets = bets.filter(type=bet_type)
    if result:
        if result == Bet.Status.OPEN:  # no outcome yet
            bets = bets.filter(outcome__status__isnull=True)
        else:
            bets = bets.filter(outcome__status=result)
    if placed_from is not None:
        bets = bets.filter(placed_at__gte=placed_from)
    if placed_before is not None:
        bets = bets.filter(placed_at__lt=placed_before)
    if placed_until is not None:
        bets = bets.filter(placed_at__lte=placed_until)
    return bets


def round_bets_of(*, round_id: int, user: User | AnonymousUser | None) -> list[Bet]:
    """The caller's bets on one round (none for an anonymous caller)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return list(
        Bet.objects.filter(round_id=round_id, user=cast("User", user)).select_related("outcome", "round").order_by("id")
    )


def round_with_bets(*, round_id: int, user: User | AnonymousUser | None) -> dict[str, Any]:
    """A round's public facts (cards, totals, winner, flags; nothing more while betting is open)
    and only the caller's bets with their payouts. Raises ``round_not_found``."""
    round_ = (
        Round.objects.select_related("shoe", "table__variant").filter(pk=round_id).first()
        if round_id <= MAX_ID
        else None
    )
    if round_ is None:
        raise NotFound("There is no such round.", code="round_not_found")
    data = round_detail(round_)
    data.update(
        {
            "table_id": round_.table_id,
            "table_name": round_.table.name,
            "settled_at": iso(round_.settled_at),
            "cancelled_at": iso(round_.cancelled_at),
            "bets": round_bets_of(round_id=round_.pk, user=user),
        }
    )
    return data


# Each is (description, SQL returning offending rows as text): the bets against the ledger they point into.
BET_CHECKS: tuple[tuple[str, str], ...] = (
    (
        "bet placement's stake differs from its bets",
        """
        SELECT format('placement %s: bets total %s, stake entry %s', p.id, b.total, -e.amount)
        FROM tables_betplacement p
        JOIN (SELECT placement_id, SUM(amount) AS total FROM tables_bet GROUP BY placement_id) b
          ON b.placement_id = p.id
        LEFT JOIN wallets_ledgerentry e ON e.transaction_id = p.stake_transaction_id AND e.balance_after IS NOT NULL
        WHERE e.amount IS DISTINCT FROM -b.total
        """,
    ),
    (
        "bet left open in a finished round",
        """
        SELECT format('%s %s bets (%s) in %s round %s have no outcome', b.type, b.mode, count(*), r.state, r.id)
        FROM tables_bet b JOIN tables_round r ON r.id = b.round_id
        LEFT JOIN tables_betoutcome o ON o.round_id = b.round_id AND o.type = b.type AND o.mode = b.mode
        WHERE o.id IS NULL AND r.state IN ('settled', 'cancelled')
        GROUP BY b.type, b.mode, r.state, r.id
        """,
    ),
    (
        "outcome that does not fit its round",
        """
        SELECT format('outcome %s (%s %s %s) on %s round %s', o.id, o.type, o.mode, o.status, r.state, r.id)
        FROM tables_betoutcome o JOIN tables_round r ON r.id = o.round_id
        WHERE r.state NOT IN ('settled', 'cancelled')
           OR (r.state = 'cancelled') <> (o.status = 'refunded')
        """,
    ),
    (
        "settled bets' payouts differ from what the ledger credited for their round",
        """
        WITH paid AS (
            SELECT b.round_id, b.user_id, SUM({payout}) AS total
            FROM tables_bet b JOIN tables_betoutcome o ON o.round_id = b.round_id AND o.type = b.type
                                                      AND o.mode = b.mode
            GROUP BY b.round_id, b.user_id
        ), credited AS (
            SELECT substr(t.reference, 7)::bigint AS round_id, w.user_id, SUM(e.amount) AS total
            FROM wallets_ledgertransaction t
            JOIN wallets_ledgerentry e ON e.transaction_id = t.id
            JOIN wallets_wallet w ON w.id = e.wallet_id AND w.kind = 'player'
            WHERE t.kind IN ('payout', 'refund') AND t.reference ~ '^round:[0-9]+$'
            GROUP BY 1, 2
        )
        SELECT format('round %s, player %s: bets pay %s, the ledger credits %s', COALESCE(p.round_id, c.round_id),
                      COALESCE(p.user_id, c.user_id), COALESCE(p.total, 0), COALESCE(c.total, 0))
        FROM paid p FULL JOIN credited c ON c.round_id = p.round_id AND c.user_id = p.user_id
        WHERE COALESCE(p.total, 0) <> COALESCE(c.total, 0)
        """.replace("{payout}", payout_sql("b.amount", "o.status", "o.odds")),
    ),
    (
        "round's settlement transaction is not its own",
        """
        SELECT format('round %s names transaction %s (%s %s)', r.id, t.id, t.kind, t.reference)
        FROM tables_round r JOIN wallets_ledgertransaction t ON t.id = r.settlement_transaction_id
        WHERE t.reference <> 'round:' || r.id OR t.kind NOT IN ('payout', 'refund')
        """,
    ),
)


def casino_reconciliation(*, limit_per_check: int = 20) -> Reconciliation:
    """The ledger's own checks (``wallets.selectors.ledger_reconciliation``) and the bets' against it:
    every placement's stake equals its bets, no bet is open in a finished round, outcomes only on finished rounds
    (refunds on cancelled ones only), the ledger credited each player what their bets on each round pay (by the
    one payout rule, ``tables.selectors.outcomes``), each round's transaction is its own."""
    return ledger_reconciliation(limit_per_check=limit_per_check, extra_checks=BET_CHECKS)
