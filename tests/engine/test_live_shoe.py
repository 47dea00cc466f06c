"""A live dealer's shoe (tables.engine.live) and where the next card goes (tables.engine.next_hand)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.engine import (
    Card,
    CardRefused,
    LiveShoeState,
    deal_round,
    new_live_shoe,
    next_hand,
    parse_cards,
    shoe_state,
)

# One card per point value (A=1 … 9, K=0) stands for every card: the tableau only looks at points.
POINT_CARDS = [Card.parse(code) for code in ("KS", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S")]


def test_next_hand_follows_the_tableau_for_every_round():
    """Exhaustive over what the tableau reads: each two-card total of Player and Banker (0–9 each, as P1 + B1
    with two zero-point cards) and every third card's points, card by card. next_hand names exactly the hands
    deal_round deals to, in order, and None once the round is complete."""
    rounds = 0

    def walk(prefix: list[Card], hands: list[str]) -> None:
        nonlocal rounds
        hand = next_hand(prefix)
        if hand is None:
            assert [h for h, _c in deal_round(iter(prefix)).cards_in_deal_order()] == hands
            rounds += 1
            return
        for card in POINT_CARDS:
            walk([*prefix, card], [*hands, hand])

    zero = POINT_CARDS[0]
    for player_total, banker_total in itertools.product(POINT_CARDS, repeat=2):
        start = [player_total, banker_total, zero, zero]
        assert [next_hand(start[:i]) for i in range(4)] == ["player", "banker", "player", "banker"]
        walk(start, ["player", "banker", "player", "banker"])
    assert rounds > 1_000


def test_only_the_banker_draws_a_third_card():
    """Player stands on 7; Banker on 3 draws: the fifth card is Banker's."""
    dealt = parse_cards("4H 2C 3D AS")  # Player 4+3=7 stands; Banker 2+1=3 draws
    assert next_hand(dealt) == "banker"
    assert next_hand([*dealt, Card.parse("9C")]) is None


def test_more_cards_than_the_round_calls_for_are_refused():
    with pytest.raises(ValueError):
        next_hand(parse_cards("9H 2C KD AS 5C"))  # a natural: the round had 4 cards


def test_a_live_shoe_waits_for_its_burn_then_counts_every_card():
    shoe = new_live_shoe(1)
    assert not shoe.ready
    assert shoe.cards_left == 52
    with pytest.raises(CardRefused) as refused:
        shoe.accept(Card.parse("AS"))
    assert refused.value.code == "burn_pending"
    assert shoe.scan_burn(Card.parse("KD")) == 10  # a face card burns 10
    with pytest.raises(CardRefused):
        shoe.scan_burn(Card.parse("2C"))  # one burn card per shoe
    shoe.confirm_burn()
    assert shoe.ready
    assert shoe.cards_left == 52 - 11
    shoe.accept(Card.parse("AS"))
    with pytest.raises(CardRefused) as refused:
        shoe.accept(Card.parse("AS"))  # one deck holds one ace of spades
    assert refused.value.code == "card_impossible"
    with pytest.raises(CardRefused):
        shoe.accept(Card.parse("KD"))  # the burn card was the deck's only king of diamonds
    assert shoe.cards_left == 52 - 12
    assert shoe.mark_cut_card_out()
    assert shoe.is_last_round
    assert not shoe.mark_cut_card_out()


def test_an_empty_live_shoe_refuses_every_card():
    shoe = LiveShoeState(decks=1, position=52, burn_card="2C", burn_count=2, burned=True)
    with pytest.raises(CardRefused) as refused:
        shoe.accept(Card.parse("3H"))
    assert refused.value.code == "shoe_empty"


@given(st.integers(min_value=1, max_value=8), st.lists(st.sampled_from([str(c) for c in POINT_CARDS] + ["AH", "7D"])))
def test_a_live_shoe_never_holds_more_copies_than_its_decks(decks, codes):
    shoe = new_live_shoe(decks)
    shoe.scan_burn(Card.parse("5C"))
    shoe.confirm_burn()
    taken = 0
    for code in codes:
        if shoe.seen.get(code, 0) < decks:
            shoe.accept(Card.parse(code))
            taken += 1
        else:
            with pytest.raises(CardRefused, match="all of them have been dealt"):
                shoe.accept(Card.parse(code))
    assert all(count <= decks for count in shoe.seen.values())
    assert shoe.cards_left == 52 * decks - 6 - taken
    again = shoe_state(shoe.to_dict())
    assert again == shoe


def test_a_corrupt_live_state_is_refused():
    with pytest.raises(ValueError):
        LiveShoeState.from_dict({"kind": "live", "decks": 1, "seen": {"AS": 2}})
