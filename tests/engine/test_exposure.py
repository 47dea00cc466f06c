"""The exposure rule (tables.engine.exposure): the outcomes a shoe allows, and what the house pays on each.

Exhaustive over the outcomes where that is small (every outcome a shoe allows, every stake key), Hypothesis
for books of mixed stakes.
"""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine import BET_TYPES, DEFAULT_PAYTABLE, MODES, Paytable, deal_round, shuffled_cards
from tables.engine.exposure import (
    STAKE_KEYS,
    Exposure,
    describe_facts,
    possible_facts,
    result_exposure,
    stake_key,
    worst_case_exposure,
)
from tables.engine.payouts import Facts, facts_of, settle_facts
from tables.engine.simulation import key_facts, simulate

NINE_TO_ONE = Paytable.from_dict({**DEFAULT_PAYTABLE.to_dict(), "tie": "9"})
seeds = st.binary(min_size=16, max_size=48).map(bytes.hex)
amounts = st.integers(min_value=1, max_value=10_000_000).map(lambda c: Decimal(c).scaleb(-2))
rows = st.tuples(st.sampled_from(BET_TYPES), st.sampled_from(MODES), amounts, st.integers(min_value=1, max_value=5))
books = st.lists(rows, min_size=1, max_size=8)


def settled_net(book, facts, paytable=DEFAULT_PAYTABLE) -> Decimal:
    """What settlement would pay net on ``facts``: each bet settled on its own (tables.engine.payouts)."""
    returns = sum((n * settle_facts(t, a, facts, m, paytable)[1] for t, m, a, n in book), Decimal(0))
    return returns - sum((n * a for _t, _m, a, n in book), Decimal(0))


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_every_round_a_simulated_shoe_deals_is_a_possible_outcome(decks):
    allowed = set(possible_facts(decks))
    sim = simulate(20_000, decks=decks, seed=f"exposure-{decks}")
    dealt = {key_facts(key) for key, count in enumerate(sim.counts) if count}
    assert dealt <= allowed
    assert len(dealt) > 100  # the run saw a real variety of outcomes


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(min_value=1, max_value=8))
def test_the_first_rounds_of_any_shoe_are_possible_outcomes(seed, decks):
    cards = iter(shuffled_cards(seed, decks))
    allowed = set(possible_facts(decks))
    for _ in range(5):
        assert facts_of(deal_round(cards)) in allowed


def test_one_deck_allows_no_perfect_pair_and_two_decks_do():
    assert not any(f.player_perfect_pair or f.banker_perfect_pair for f in possible_facts(1))
    assert any(f.player_perfect_pair and f.banker_perfect_pair for f in possible_facts(2))
    # The value counts only matter for one deck; from two decks on every outcome is reachable.
    assert set(possible_facts(2)) == set(possible_facts(8))
    assert set(possible_facts(1)) < set(possible_facts(2))


@pytest.mark.parametrize("decks", [0, 9])
def test_a_shoe_outside_one_to_eight_decks_is_refused(decks):
    with pytest.raises(ValueError, match="1 to 8 decks"):
        possible_facts(decks)


@pytest.mark.parametrize("paytable", [DEFAULT_PAYTABLE, NINE_TO_ONE], ids=["tie-8", "tie-9"])
@pytest.mark.parametrize("decks", [1, 8])
@pytest.mark.parametrize("key", STAKE_KEYS, ids="-".join)
def test_one_bet_is_priced_as_settlement_pays_it_on_every_possible_outcome(key, decks, paytable):
    book = [(key[0], key[1], Decimal("10.15"), 3)]
    nets = []
    for facts in possible_facts(decks):
        exposure = result_exposure(book, facts=facts, paytable=paytable)
        assert exposure.exact
        assert exposure.net == settled_net(book, facts, paytable)
        nets.append(exposure.net)
    worst = worst_case_exposure(book, decks=decks, paytable=paytable)
    assert not worst.exact
    assert worst.net == max(nets)
    assert result_exposure(book, facts=worst.facts, paytable=paytable).net == worst.net


@settings(max_examples=80, deadline=None)
@given(books, st.integers(min_value=1, max_value=8), st.data())
def test_the_worst_case_is_the_maximum_over_outcomes_and_a_result_is_what_settlement_pays(book, decks, data):
    facts = possible_facts(decks)
    worst = worst_case_exposure(book, decks=decks, paytable=DEFAULT_PAYTABLE)
    assert worst.net == max(settled_net(book, f) for f in facts)
    assert worst.net == settled_net(book, worst.facts)
    some: Facts = data.draw(st.sampled_from(facts))
    assert result_exposure(book, facts=some, paytable=DEFAULT_PAYTABLE).net == settled_net(book, some)
    assert result_exposure(book, facts=some, paytable=DEFAULT_PAYTABLE).net <= worst.net


def test_without_stakes_the_exposure_is_zero():
    assert worst_case_exposure([], decks=8, paytable=DEFAULT_PAYTABLE) == Exposure(net=Decimal("0.00"))
    known = result_exposure([], facts=possible_facts(8)[0], paytable=DEFAULT_PAYTABLE)
    assert (known.net, known.exact, known.outcome) == (Decimal("0.00"), True, "")


def test_the_exposure_needs_no_pair_that_the_cards_cannot_make():
    # A Player pair makes an even two-card total, so it never comes with a natural 9: the worst case of
    # Player pair + Player natural is a natural 8 from a pair (4-4): 10 × 12 + 10 × 4.5 − 20 = 145.00.
    bets = [("player_pair", "traditional", Decimal("10.00"), 1), ("player_natural", "traditional", Decimal("10.00"), 1)]
    exposure = worst_case_exposure(bets, decks=8, paytable=DEFAULT_PAYTABLE)
    assert exposure.net == Decimal("145.00")
    assert (exposure.facts.player_total, exposure.facts.player_natural) == (8, True)
    # One deck holds no two identical cards: a Perfect pair bet cannot win.
    perfect = [("perfect_pair", "traditional", Decimal("10.00"), 1)]
    assert worst_case_exposure(perfect, decks=1, paytable=DEFAULT_PAYTABLE).net == Decimal("-10.00")
    assert worst_case_exposure(perfect, decks=2, paytable=DEFAULT_PAYTABLE).net == Decimal("250.00")


def test_winnings_are_rounded_down_per_bet_as_settlement_does():
    # 3 × (0.95 × 0.15 = 0.1425 → 0.14) = 0.42, not 0.95 × 0.45 = 0.4275 → 0.43.
    banker = [("banker", "traditional", Decimal("0.15"), 3)]
    assert worst_case_exposure(banker, decks=8, paytable=DEFAULT_PAYTABLE).net == Decimal("0.42")
    # A cent on Banker wins nothing at 0.95:1 (0.0095 → 0.00): the house never loses on it.
    cent = [("banker", "traditional", Decimal("0.01"), 7)]
    assert worst_case_exposure(cent, decks=8, paytable=DEFAULT_PAYTABLE).net == Decimal("0.00")


def test_player_and_banker_never_both_win_and_only_banker_has_a_mode():
    both = [("player", "traditional", Decimal("100.00"), 1), ("banker", "no_commission", Decimal("100.00"), 1)]
    # The worst case is Banker winning with anything but a 6 (1:1), or Player (1:1): 100 − 100 = 0, never 200.
    assert worst_case_exposure(both, decks=8, paytable=DEFAULT_PAYTABLE).net == Decimal("0.00")
    assert stake_key("banker", "no_commission") == ("banker", "no_commission")
    assert stake_key("player", "no_commission") == ("player", "traditional")
    assert len(STAKE_KEYS) == len(BET_TYPES) + 1


def test_describe_facts_says_the_round_in_a_few_words():
    tie = Facts("tie", 6, 6, False, False, 3, True, False, False, False)
    assert describe_facts(tie) == "Tie (Player 6, Banker 6), Banker on three cards, Player pair"
    natural = Facts("banker", 2, 9, False, True, 2, False, True, False, True)
    assert describe_facts(natural) == "Banker wins (Player 2, Banker 9), natural, Banker perfect pair"
