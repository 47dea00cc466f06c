"""Exact odds: docs/rules.md's published house edges and outcome chances, any deck count, any paytable."""

import math
from decimal import Decimal
from fractions import Fraction

import pytest

from tables.engine import BET_TYPES, Paytable, house_edges, odds
from tables.engine.odds import bet_distributions, outcome_probabilities, outcome_weights, pair_probabilities

# docs/rules.md "Return to player", as percentages with four decimals.
PUBLISHED_8_DECKS = {
    "banker": "1.0579",
    "player": "1.2351",
    "banker_no_commission": "1.4581",
    "tie": "14.3596",
    "player_pair": "10.3614",
    "banker_pair": "10.3614",
    "any_pair": "13.7099",
    "perfect_pair": "13.0294",
    "player_natural": "14.7544",
    "banker_natural": "14.7544",
    "player_bonus": "2.6517",
    "banker_bonus": "9.3731",
    "lucky_six": "16.6836",
    "lucky_six_2": "14.3325",
    "lucky_six_3": "15.2533",
}


def six_places(x: Fraction) -> Decimal:
    return (Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal("0.000001"))


@pytest.mark.parametrize(("bet", "edge"), PUBLISHED_8_DECKS.items())
def test_published_house_edges_for_8_decks_to_6_decimals(bet, edge):
    assert six_places(house_edges(8)[bet]) == Decimal(edge) / 100


def test_tie_paying_9_to_1_has_a_4_8440_percent_edge():
    assert six_places(house_edges(8, Paytable(tie=Decimal(9)))["tie"]) == Decimal("0.048440")


def test_the_best_return_to_player_is_the_banker_bet_98_94_percent():
    edges = house_edges(8)
    best = min(edges, key=edges.__getitem__)
    assert best == "banker"
    assert round(float(1 - edges[best]) * 100, 2) == 98.94


def test_outcome_probabilities_for_8_decks():
    probs = outcome_probabilities(8)
    assert {k: round(float(v), 8) for k, v in probs.items()} == {
        "banker": 0.45859742,
        "player": 0.44624661,
        "tie": 0.09515597,
    }
    assert sum(probs.values()) == 1


def test_banker_edge_is_1_0117_percent_with_one_deck_and_1_0558_with_six():
    assert round(float(house_edges(1)["banker"]) * 100, 4) == 1.0117
    assert round(float(house_edges(6)["banker"]) * 100, 4) == 1.0558


def test_house_edges_cover_every_bet_type_and_the_no_commission_banker():
    assert list(house_edges(8)) == ["player", "banker", "banker_no_commission", *BET_TYPES[2:]]
    assert set(house_edges(8)) == {*BET_TYPES, "banker_no_commission"}


@pytest.mark.parametrize("decks", range(1, 9))
def test_every_bets_chances_add_up_to_one_for_every_deck_count(decks):
    distributions = bet_distributions(decks)
    assert set(distributions) == {*BET_TYPES, "banker_no_commission"}
    for dist in distributions.values():
        assert sum(dist.values()) == 1
        assert all(p >= 0 for p in dist.values())


def test_a_perfect_pair_cannot_happen_with_one_deck():
    assert pair_probabilities(1)["perfect_pair"] == 0
    assert house_edges(1)["perfect_pair"] == 1


def test_player_pair_chance_is_same_rank_among_the_remaining_cards():
    for decks in range(1, 9):
        assert pair_probabilities(decks)["player_pair"] == Fraction(4 * decks - 1, 52 * decks - 1)


def test_any_paytable_is_priced_for_example_richer_bonus_margins():
    richer = Paytable.from_dict({"bonus_margins": {"4": "1", "5": "2", "6": "4", "7": "6", "8": "10", "9": "50"}})
    assert house_edges(8, richer)["player_bonus"] < house_edges(8)["player_bonus"]
    free_banker = Paytable(banker=Decimal(1))  # no commission at all: Banker has the edge over the house
    assert house_edges(8, free_banker)["banker"] < 0


def _ordered_enumeration(decks: int) -> list[int]:
    """An independent, plain enumeration of every ordered deal by card value (no multiset shortcut), with
    integer weights scaled to six cards, per (player total, banker total, kind) like odds.outcome_weights."""
    draws_on = {0: range(10), 1: range(10), 2: range(10), 3: [0, 1, 2, 3, 4, 5, 6, 7, 9]}
    draws_on |= {4: range(2, 8), 5: range(4, 8), 6: (6, 7), 7: ()}
    c = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    weights = [0] * 300

    def add(p: int, b: int, kind: int, w: int) -> None:
        weights[(p * 10 + b) * 3 + kind] += w

    for p1 in range(10):
        w1 = c[p1]
        c[p1] -= 1
        for b1 in range(10):
            w2 = w1 * c[b1]
            c[b1] -= 1
            for p2 in range(10):
                w3 = w2 * c[p2]
                c[p2] -= 1
                for b2 in range(10):
                    w = w3 * c[b2]
                    c[b2] -= 1
                    p, b = (p1 + p2) % 10, (b1 + b2) % 10
                    if w == 0:
                        pass
                    elif p >= 8 or b >= 8:
                        add(p, b, 0, w * (n - 4) * (n - 5))
                    elif p <= 5:
                        for x in range(10):
                            wx = w * c[x]
                            c[x] -= 1
                            if x in draws_on[b]:
                                for y in range(10):
                                    add((p + x) % 10, (b + y) % 10, 2, wx * c[y])
                            else:
                                add((p + x) % 10, b, 1, wx * (n - 5))
                            c[x] += 1
                    elif b <= 5:
                        for y in range(10):
                            add(p, (b + y) % 10, 2, w * c[y] * (n - 5))
                    else:
                        add(p, b, 1, w * (n - 4) * (n - 5))
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return weights


@pytest.mark.parametrize("decks", range(1, 9))
def test_the_fast_enumeration_agrees_exactly_with_a_plain_ordered_one(decks):
    weights, denominator = outcome_weights(decks)
    assert list(weights) == _ordered_enumeration(decks)
    assert sum(weights) == denominator == math.perm(52 * decks, 6)


def test_a_cold_exact_calculation_enumerates_the_shoe_once_in_the_same_steps_whatever_its_size(monkeypatch):
    """What keeps the exact odds cheap (bench/engine.py times them: goal 0.5 s cold for 8 decks): every bet's edge
    comes from one enumeration of the shoe, and it walks card values, not cards, so 8 decks cost what 1 does (an
    ordered enumeration of 8 decks' deals would be 416·415·…·411 ≈ 5·10^15 steps)."""
    steps = [0]
    index = odds._index

    def counted(*args: int) -> int:
        steps[0] += 1
        return index(*args)

    monkeypatch.setattr(odds, "_index", counted)
    per_size = {}
    for decks in (1, 8):
        outcome_weights.cache_clear()
        steps[0] = 0
        house_edges(decks)
        assert outcome_weights.cache_info().misses == 1  # every bet from the one enumeration
        per_size[decks] = steps[0]
    outcome_weights.cache_clear()  # the other tests enumerate with the real _index
    assert per_size[8] == per_size[1] < 2_000
