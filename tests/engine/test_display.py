"""What a table shows next to its bets: payout labels from the paytable, chips from the limits."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.engine import (
    BET_TYPES,
    DEFAULT_PAYTABLE,
    Paytable,
    chip_denominations,
    house_edge_text,
    house_edges,
    odds_label,
    payout_labels,
    rtp_text,
)
from tables.engine.display import CHIP_SERIES, RACK_SIZE


@pytest.mark.parametrize(
    ("odds", "label"),
    [("1", "1:1"), ("0.95", "0.95:1"), ("3.5", "7:2"), ("0.5", "1:2"), ("8", "8:1"), ("30", "30:1"), ("0.75", "3:4")],
)
def test_odds_read_as_a_casino_writes_them(odds, label):
    assert odds_label(Decimal(odds)) == label


def test_the_default_paytable_labels_every_bet_as_the_rules_state_it():
    labels = payout_labels(DEFAULT_PAYTABLE)
    assert set(labels) == set(BET_TYPES)
    traditional = {t: modes["traditional"] for t, modes in labels.items()}
    assert traditional == {
        "player": "1:1",
        "banker": "0.95:1",
        "tie": "8:1",
        "player_pair": "11:1",
        "banker_pair": "11:1",
        "any_pair": "5:1",
        "perfect_pair": "25:1",
        "player_natural": "7:2",
        "banker_natural": "7:2",
        "player_bonus": "1:1 – 30:1",
        "banker_bonus": "1:1 – 30:1",
        "lucky_six": "12:1 / 20:1",
        "lucky_six_2": "22:1",
        "lucky_six_3": "50:1",
    }


def test_no_commission_mode_changes_only_the_banker_label():
    labels = payout_labels(DEFAULT_PAYTABLE)
    changed = {t for t, modes in labels.items() if modes["traditional"] != modes["no_commission"]}
    assert changed == {"banker"}
    assert labels["banker"]["no_commission"] == "1:1 · 6 → 1:2"


def test_labels_follow_the_tables_own_paytable():
    paytable = Paytable(tie=Decimal(9), banker=Decimal("0.9"), player_pair=Decimal(12))
    labels = payout_labels(paytable)
    assert labels["tie"]["traditional"] == "9:1"
    assert labels["banker"]["traditional"] == "0.9:1"
    assert labels["player_pair"]["no_commission"] == "12:1"


@pytest.mark.parametrize(
    ("low", "high", "rack"),
    [
        ("1", "5000", [1, 5, 10, 25, 100, 500]),
        ("100", "50000", [100, 500, 1000, 5000, 10000, 25000]),
        ("5", "100", [1, 5, 10, 25, 100]),
        ("1", "20", [1, 5, 10]),
        ("0.50", "500", [1, 5, 10, 25, 100, 500]),
    ],
)
def test_the_chip_rack_fits_the_tables_limits(low, high, rack):
    assert chip_denominations({"player": (Decimal(low), Decimal(high))}) == rack


@given(
    low=st.integers(min_value=1, max_value=200_000),
    span=st.integers(min_value=0, max_value=500_000),
)
def test_a_rack_is_never_empty_never_above_the_maximum_and_at_most_six_chips(low, span):
    high = low + span
    rack = chip_denominations({"banker": (Decimal(low), Decimal(high)), "tie": (Decimal(low), Decimal(high))})
    assert 1 <= len(rack) <= RACK_SIZE
    assert rack == sorted(set(rack))
    assert set(rack) <= set(CHIP_SERIES)
    assert all(chip <= high for chip in rack) or rack == [CHIP_SERIES[0]]


def test_the_return_to_player_is_truncated_never_rounded_up():
    banker_one_deck = house_edges(1)["banker"]  # an RTP of 98.98825…%
    assert rtp_text(banker_one_deck) == "98.98%"  # not 98.99%
    assert rtp_text(banker_one_deck, places=4) == "98.9882%"  # not 98.9883%
    assert house_edge_text(banker_one_deck) == "1.01%"
    assert house_edge_text(banker_one_deck, places=4) == "1.0117%"
    assert rtp_text(Fraction(3, 200)) == "98.50%"  # exact at two places: shown exactly
    assert rtp_text(Fraction(0)) == "100.00%"
    assert rtp_text(Fraction(1)) == "0.00%"
    assert rtp_text(Fraction(-1, 200)) == "100.50%"  # a player advantage
    assert house_edge_text(Fraction(-1, 200)) == "-0.50%"
    assert house_edge_text(Fraction(10579, 1_000_000)) == "1.06%"


@given(st.fractions(min_value=-1, max_value=1), st.integers(min_value=0, max_value=6))
def test_a_shown_return_is_at_most_the_exact_one_and_less_than_one_last_place_below(edge, places):
    shown = Fraction(Decimal(rtp_text(edge, places).rstrip("%")))
    exact = (1 - edge) * 100
    assert exact - Fraction(1, 10**places) < shown <= exact
