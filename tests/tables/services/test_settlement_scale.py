"""A round of 10,000 bets over 1,000 distinct amounts is settled with at most 30 outcome rows (one per type and
mode), and every player is paid exactly what the engine says each of their bets returns."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.db import connection
from django.db.models import Sum

from tables import engine, events
from tables.engine import BET_TYPES, MODES
from tables.models import Bet, BetOutcome, Round
from tables.selectors.outcomes import bet_payout
from tables.services import settlement
from wallets.models import LedgerTransaction, Wallet

BETS = 10_000
PLAYERS = 100
AMOUNTS = [Decimal(n) * Decimal("0.37") + Decimal("0.25") for n in range(1, 1001)]  # 1,000 distinct amounts
# P 3 2 | 8 → 3, B 6 K → 6 stands: Banker wins with a two-card 6 (Lucky Six, No-Commission's half pay).
BANKER_SIX = "3H 6D 2C KS 8C"

# The bets, set-based: one placement per player, then bet i is player i % PLAYERS's, of type i % 14 and mode
# (i // 14) % 2, for amount i % 1,000. (Their stakes are not debited: only what settlement pays is looked at.)
INSERT_BETS = """
WITH p AS (
    INSERT INTO tables_betplacement (user_id, round_id, idempotency_key, fingerprint, mode, response, created_at)
    SELECT u, %(round)s, 'scale-' || u, '', 'traditional', '{}', now() FROM unnest(%(users)s::bigint[]) AS u
    RETURNING id, user_id
)
INSERT INTO tables_bet (round_id, user_id, placement_id, type, amount, mode, placed_at)
SELECT %(round)s, p.user_id, p.id, (%(types)s::varchar[])[1 + i %% %(n_types)s],
       (%(amounts)s::numeric[])[1 + i %% 1000], (%(modes)s::varchar[])[1 + (i / %(n_types)s) %% 2], now()
FROM generate_series(0, %(bets)s - 1) AS i
JOIN p ON p.user_id = (%(users)s::bigint[])[1 + i %% %(players)s]
"""


def test_ten_thousand_bets_are_settled_with_at_most_thirty_outcomes_and_paid_exactly(
    player, betting_round, deal, monkeypatch
):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    users = [player(f"p{i}", "0.00") for i in range(PLAYERS)]
    with connection.cursor() as cursor:
        cursor.execute(
            INSERT_BETS,
            {
                "round": betting_round.pk,
                "users": [u.pk for u in users],
                "types": list(BET_TYPES),
                "n_types": len(BET_TYPES),
                "amounts": AMOUNTS,
                "modes": list(MODES),
                "bets": BETS,
                "players": PLAYERS,
            },
        )
        assert cursor.rowcount == BETS
    bets = list(Bet.objects.filter(round=betting_round).values_list("user_id", "type", "mode", "amount"))
    assert len({amount for *_kind, amount in bets}) == 1000
    deal(betting_round, BANKER_SIX)
    result = engine.RoundResult.from_cards(
        engine.parse_cards("3H 2C 8C"), engine.parse_cards("6D KS")
    )  # the same deal, as the engine sees it
    paytable = engine.Paytable.from_dict(Round.objects.get(pk=betting_round.pk).terms["paytable"])
    owed: dict[int, Decimal] = defaultdict(Decimal)
    for user_id, bet_type, mode, amount in bets:
        _status, payout = engine.settle_outcome(bet_type, amount, result, mode=mode, paytable=paytable)
        owed[user_id] += payout

    assert settlement.round_settle(round_id=betting_round.pk) == BETS

    outcomes = BetOutcome.objects.filter(round=betting_round).count()
    assert outcomes == len({(t, m) for _u, t, m, _a in bets}) <= 30
    balances = dict(Wallet.objects.filter(user__in=users).values_list("user_id", "balance"))
    assert balances == {u.pk: owed[u.pk] for u in users}  # every player, to the cent
    assert sum(owed.values()) > 0
    [payout] = LedgerTransaction.objects.filter(kind="payout", reference=f"round:{betting_round.pk}")
    assert Round.objects.get(pk=betting_round.pk).settlement_transaction_id == payout.pk
    # the ORM's payout expression over the same bets says the same, player by player
    by_orm = dict(
        Bet.objects.filter(round=betting_round)
        .values("user_id")
        .annotate(paid=Sum(bet_payout()))
        .order_by()
        .values_list("user_id", "paid")
    )
    assert by_orm == {u.pk: owed[u.pk] for u in users}
