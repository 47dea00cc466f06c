"""A bet's terms never change after it is confirmed: each round keeps the paytable and limits it opened with."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tables.models import Bet
from tables.services import ticker
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_round_opens_with_a_copy_of_its_variants_paytable_and_limits():
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    assert round_.terms == table.variant.terms()
    assert round_.terms["paytable"]["banker"] == "0.95"
    assert round_.terms["limits"]["per_type"]["tie"] == {"min": "1.00", "max": "5000.00"}


def test_a_variant_edited_mid_round_pays_the_rounds_original_odds():
    table = fast_table()
    clock = Clock()
    alice = make_player("alice", "1000.00")
    round_ = drive_to_state(table, clock, "betting")
    for bet_type in ("banker", "player", "tie"):
        place(alice, round_.pk, (bet_type, "100.00"))
    # The operator makes every main bet pay 2:1 (Tie 9:1) while the round is open.
    variant = table.variant
    variant.pays_banker = variant.pays_player = Decimal(2)
    variant.pays_tie = Decimal(9)
    variant.allow_player_advantage = True
    variant.save()
    settled = drive_to_state(table, clock, "settled")
    odds = {"banker": Decimal("0.95"), "player": Decimal(1), "tie": Decimal(8)}
    # Banker, Player and Tie on one round: exactly one of them wins, so the odds below are always checked.
    assert list(Bet.objects.filter(round=settled).values_list("outcome__status", flat=True)).count("won") == 1
    for bet in Bet.objects.filter(round=settled):
        if bet.status == "won":
            assert bet.payout == bet.amount + bet.amount * odds[bet.type], bet.type
        elif bet.status == "push":
            assert bet.payout == bet.amount
    assert balance_of(alice) == Decimal("700.00") + sum(b.payout for b in Bet.objects.filter(round=settled))
    # The next round opens with the new terms.
    ticker.table_step(table_id=table.pk, now=clock.now)
    nxt = drive_to_state(table, clock, "betting")
    assert nxt.pk != settled.pk
    assert nxt.terms["paytable"]["banker"] == "2.00"
    assert nxt.terms["paytable"]["tie"] == "9.00"
