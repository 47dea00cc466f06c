"""Hypothesis properties of dealing, settlement and the provably fair shoe."""

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine import (
    BET_TYPES,
    MODES,
    RANKS,
    SUITS,
    Card,
    RoundResult,
    commitment,
    deal_round,
    settle,
    settle_outcome,
    shuffled_cards,
    verify_shoe,
)

ALL_CARDS = [Card(r, s) for r in RANKS for s in SUITS]
cards6 = st.lists(st.sampled_from(ALL_CARDS), min_size=6, max_size=6)
stakes = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000.00"), places=2)
seeds = st.binary(min_size=16, max_size=48).map(bytes.hex)


@given(cards6)
def test_totals_are_0_to_9_and_a_round_uses_4_to_6_cards(cards):
    it = iter(cards)
    result = deal_round(it)
    used = 6 - len(list(it))
    assert 4 <= used <= 6
    assert used == len(result.player_cards) + len(result.banker_cards)
    assert 0 <= result.player_total <= 9
    assert 0 <= result.banker_total <= 9
    assert result.margin == abs(result.player_total - result.banker_total)
    assert [c for _, c in result.cards_in_deal_order()] == cards[:used]
    assert RoundResult.from_cards(result.player_cards, result.banker_cards) == result


@given(cards6, stakes, st.sampled_from(BET_TYPES), st.sampled_from(MODES))
def test_payouts_are_never_negative_and_push_returns_the_stake(cards, stake, bet_type, mode):
    result = deal_round(iter(cards))
    outcome, back = settle_outcome(bet_type, stake, result, mode)
    assert back >= 0
    assert back == back.quantize(Decimal("0.01"))
    assert back == settle(bet_type, stake, result, mode)
    if outcome == "lost":
        assert back == 0
    elif outcome == "push":
        assert back == stake
    else:
        assert back >= stake


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(min_value=1, max_value=8))
def test_same_seed_gives_the_same_shoe_and_the_verifier_accepts_it(seed, decks):
    cards = shuffled_cards(seed, decks)
    assert cards == shuffled_cards(seed, decks)
    assert verify_shoe(seed, commitment(seed), cards)


@settings(max_examples=40, deadline=None)
@given(seeds, seeds, st.integers(min_value=1, max_value=8))
def test_any_other_seed_is_rejected(seed, other, decks):
    cards = shuffled_cards(seed, decks)
    if other != seed:
        assert not verify_shoe(other, commitment(other), cards)
        assert not verify_shoe(other, commitment(seed), cards)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(min_value=1, max_value=8), st.data())
def test_an_altered_order_is_rejected(seed, decks, data):
    cards = shuffled_cards(seed, decks)
    i = data.draw(st.integers(min_value=0, max_value=len(cards) - 1))
    j = data.draw(st.integers(min_value=0, max_value=len(cards) - 1).filter(lambda j: cards[j] != cards[i]))
    altered = list(cards)
    altered[i], altered[j] = altered[j], altered[i]
    assert not verify_shoe(seed, commitment(seed), altered)
    replaced = list(cards)
    replaced[i] = cards[j]
    assert not verify_shoe(seed, commitment(seed), replaced)
