"""Every cell of the third-card rules: Player two-card total × Banker two-card total × Player's third card."""

import pytest

from tables.engine import deal_round, parse_cards

RANK_OF_VALUE = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}

# docs/rules.md, written out independently of the engine: Banker's two-card total -> the values of Player's
# third card on which Banker draws.
BANKER_DRAWS_WHEN_PLAYER_THIRD_IS = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def deal_totals(player_total: int, banker_total: int, third: int, banker_third: str = "5D"):
    """Deal P (K, v) and B (K, v) with the given two-card totals; Player's third card (if drawn) is worth ``third``."""
    p2, b2, p3 = RANK_OF_VALUE[player_total], RANK_OF_VALUE[banker_total], RANK_OF_VALUE[third]
    codes = f"KS KH {p2}C {b2}D {p3}S {banker_third}"
    cards = iter(parse_cards(codes))
    return deal_round(cards), list(cards)


@pytest.mark.parametrize("player_total", range(10))
@pytest.mark.parametrize("banker_total", range(10))
def test_every_cell_of_the_third_card_table(player_total, banker_total):
    for third in range(10):
        result, left = deal_totals(player_total, banker_total, third)
        if player_total >= 8 or banker_total >= 8:
            expected_player, expected_banker = 2, 2
        elif player_total <= 5:
            expected_player = 3
            expected_banker = 3 if third in BANKER_DRAWS_WHEN_PLAYER_THIRD_IS[banker_total] else 2
        else:
            expected_player = 2
            expected_banker = 3 if banker_total <= 5 else 2
        assert (len(result.player_cards), len(result.banker_cards)) == (expected_player, expected_banker), (
            player_total,
            banker_total,
            third,
        )
        assert len(left) == 6 - expected_player - expected_banker
        assert result.player_total == sum(c.value for c in result.player_cards) % 10
        assert result.banker_total == sum(c.value for c in result.banker_cards) % 10


def banker_draw_count(player_total: int, banker_total: int, third: int) -> int:
    return len(deal_totals(player_total, banker_total, third)[0].banker_cards)


def test_player_draws_on_0_to_5_and_stands_on_6_and_7():
    for total in range(6):
        assert len(deal_totals(total, 7, 1)[0].player_cards) == 3
    for total in (6, 7):
        assert len(deal_totals(total, 7, 1)[0].player_cards) == 2


def test_banker_draws_on_0_to_5_and_stands_on_6_and_7_when_player_stood():
    for banker_total in range(6):
        assert banker_draw_count(6, banker_total, 0) == 3
        assert banker_draw_count(7, banker_total, 0) == 3
    for banker_total in (6, 7):
        assert banker_draw_count(6, banker_total, 0) == 2
        assert banker_draw_count(7, banker_total, 0) == 2


def test_banker_always_draws_on_0_1_2_when_player_drew():
    for banker_total in (0, 1, 2):
        assert all(banker_draw_count(0, banker_total, x) == 3 for x in range(10))


def test_banker_stands_on_3_only_when_player_third_card_is_8():
    assert banker_draw_count(0, 3, 8) == 2
    assert all(banker_draw_count(0, 3, x) == 3 for x in range(10) if x != 8)


def test_banker_draws_on_4_when_player_third_card_is_2_to_7_including_against_a_9():
    assert [x for x in range(10) if banker_draw_count(0, 4, x) == 3] == [2, 3, 4, 5, 6, 7]
    assert banker_draw_count(0, 4, 9) == 2


def test_banker_draws_on_5_when_player_third_card_is_4_to_7():
    assert [x for x in range(10) if banker_draw_count(0, 5, x) == 3] == [4, 5, 6, 7]


def test_banker_stands_on_6_when_player_third_card_is_5():
    assert banker_draw_count(0, 6, 5) == 2


def test_banker_draws_on_6_when_player_third_card_is_6_or_7():
    assert banker_draw_count(0, 6, 6) == 3
    assert banker_draw_count(0, 6, 7) == 3


def test_banker_stands_on_7_whatever_player_third_card_is():
    assert all(banker_draw_count(0, 7, x) == 2 for x in range(10))


def test_a_player_natural_against_a_banker_zero_stops_the_banker_drawing():
    assert banker_draw_count(8, 0, 0) == 2
    assert banker_draw_count(9, 0, 0) == 2


def test_a_banker_natural_stops_a_player_on_zero_drawing():
    result, _ = deal_totals(0, 8, 5)
    assert len(result.player_cards) == 2
    assert result.winner == "banker"


def test_naturals_of_equal_value_tie():
    result, _ = deal_totals(8, 8, 0)
    assert result.winner == "tie"
    assert result.player_natural
    assert result.banker_natural
