"""The shuffle's chi-square report: the p-value function is right, real shoes pass, biased ones are caught."""

from __future__ import annotations

import hashlib
import random
from io import StringIO

import pytest
from django.core.management import call_command

from tables.engine import fair
from tables.engine.cards import parse_cards
from tables.engine.rng_stats import chi2_sf, rng_report


@pytest.mark.parametrize(
    ("statistic", "dof", "p"),
    [(3.841459, 1, 0.05), (6.634897, 1, 0.01), (18.307038, 10, 0.05), (68.669294, 51, 0.05), (0.0, 5, 1.0)],
)
def test_the_chi_square_tail_matches_the_tables(statistic, dof, p):
    assert chi2_sf(statistic, dof) == pytest.approx(p, abs=2e-4)


def test_the_tail_at_the_mean_of_many_degrees_is_near_a_half():
    assert 0.45 < chi2_sf(364, 364) < 0.52


def seeded_shoes(count: int, decks: int):
    """Fixed seeds, so the test cannot flake: shoes as the casino shuffles them."""
    for number in range(count):
        yield fair.shuffled_cards(hashlib.sha256(f"rng-test-{number}".encode()).hexdigest(), decks)


def test_the_casinos_shuffle_passes_both_tests():
    report = rng_report(seeded_shoes(300, 1))
    assert report.shoes == 300
    assert report.cards_per_shoe == 52
    assert report.first_card.dof == 51
    assert report.positions.dof == 52 * 7
    assert report.first_card.p_value > 0.001
    assert report.positions.p_value > 0.001


def test_a_biased_shuffle_is_caught():
    """A classic bug: swapping each card with any position (not only the ones not yet placed)."""
    fresh = parse_cards(" ".join(str(card) for card in fair.shuffled_cards("00" * 32, 1)))
    ordered = sorted(fresh, key=str)
    rng = random.Random(7)

    def naive_shuffle():
        cards = list(ordered)
        for i in range(len(cards)):
            j = rng.randrange(len(cards))
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    report = rng_report(naive_shuffle() for _ in range(3000))
    assert report.positions.p_value < 1e-6


def test_the_command_prints_the_table_and_a_verdict():
    out = StringIO()
    call_command("rng_report", "--shoes", "40", "--decks", "1", stdout=out)
    text = out.getvalue()
    assert "40 shoes of 52 cards" in text
    assert "first card of the shoe" in text
    assert "card positions (eighths)" in text
    assert "verdict:" in text
