"""A bet's terms never change after it is confirmed: each round keeps the paytable and limits it opened with."""

from __future__ import annotations

from decimal import Decimal

import pytest

from baccarat_site.errors import DomainError
from tables.models import Bet, Table
from tables.selectors.tables import round_bet_types
from tables.services import ticker
from tests.factories import make_variant
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


def test_a_one_deck_shoe_after_a_switch_to_an_eight_deck_variant_neither_offers_nor_takes_perfect_pair():
    """A shoe keeps its decks when the table's variant changes mid-shoe: a Perfect Pair (two identical cards)
    can never win from one deck, so the rounds dealt from it neither offer it nor take it."""
    one_deck = make_variant("One deck", decks=1, cut_min=12, cut_max=13)
    assert "perfect_pair" not in one_deck.limits_dict()["per_type"]
    table = fast_table(variant=one_deck)
    clock = Clock()
    alice = make_player("alice", "1000.00")
    first = drive_to_state(table, clock, "settled")
    eight_decks = make_variant("Eight decks")
    assert "perfect_pair" in eight_decks.limits_dict()["per_type"]
    Table.objects.filter(pk=table.pk).update(variant=eight_decks)  # the operator switches mid-shoe
    ticker.table_step(table_id=table.pk, now=clock.now)
    nxt = drive_to_state(table, clock, "betting")
    assert nxt.shoe_id == first.shoe_id
    assert nxt.shoe.decks == 1
    assert "perfect_pair" not in nxt.terms["limits"]["per_type"]
    assert "perfect_pair" not in nxt.terms["limits"]["unavailable_after"]
    assert "perfect_pair" not in round_bet_types(nxt)
    assert "player_pair" in round_bet_types(nxt)  # a pair of ranks still can
    with pytest.raises(DomainError) as refused:
        place(alice, nxt.pk, ("perfect_pair", "10.00"))
    assert refused.value.code == "bet_unavailable"
    assert not Bet.objects.filter(round=nxt).exists()
    assert balance_of(alice) == Decimal("1000.00")
    # The eight-deck variant's paytable is the round's all the same (the terms are its own, narrowed by the shoe).
    assert nxt.terms["paytable"] == eight_decks.paytable_dict()
