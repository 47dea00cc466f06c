"""Settlement of every bet type, in both modes, on hand-made rounds, including rounding down to the cent."""

import json
from decimal import Decimal

import pytest

from tables.engine import BET_TYPES, DEFAULT_PAYTABLE, Paytable, RoundResult, parse_cards, settle, settle_outcome


def hands(player: str, banker: str) -> RoundResult:
    return RoundResult.from_cards(parse_cards(player), parse_cards(banker))


D = Decimal
PLAYER_WINS_9_3 = hands("AS 3C 5D", "JD 2S AC")  # player 9 (three cards), banker 3, margin 6
BANKER_WINS_6_TWO = hands("KS 5D 9H", "4H 2C")  # banker 6 on two cards vs player 4
BANKER_WINS_6_THREE = hands("KS 4D KH", "3H KC 3D")  # banker 6 on three cards vs 4
BANKER_WINS_7 = hands("KS 6D", "3H 4C")  # banker 7 vs player 6, margin 1
TIE_NON_NATURAL = hands("7S KH", "7D KC")  # 7 - 7
TIE_NATURAL = hands("8S KH", "8D KC")  # natural 8 - 8
PLAYER_NATURAL_WIN = hands("9S KH", "7D KC")  # natural 9 beats 7, margin 2
BANKER_NATURAL_WIN = hands("7D KC", "9S KH")
BOTH_PAIRS_PERFECT = hands("4S 4S", "5H 5H")  # multi-deck: both hands perfect pairs, P 8 natural vs B 0
PLAYER_PAIR_ONLY = hands("4S 4H", "5H 3C")  # P 8 natural; B 8 natural: natural tie, player pair (not perfect)
BANKER_PAIR_ONLY = hands("2S 3H 9D", "6H 6D 5C")  # P 5 draws 9 -> 4; B 2 draws -> 7: banker pair


def test_player_wins_even_money_and_pushes_on_a_tie():
    assert settle("player", D("10.00"), PLAYER_WINS_9_3) == D("20.00")
    assert settle("player", D("10.00"), BANKER_WINS_7) == D("0.00")
    assert settle_outcome("player", D("10.00"), TIE_NON_NATURAL) == ("push", D("10.00"))


def test_banker_traditional_pays_0_95_to_1_rounded_down_so_10_01_returns_19_51():
    assert settle("banker", D("10.01"), BANKER_WINS_7) == D("19.51")
    assert settle("banker", D("10.00"), BANKER_WINS_7) == D("19.50")
    assert settle("banker", D("0.01"), BANKER_WINS_7) == D("0.01")  # 0.0095 winnings round down to 0
    assert settle("banker", D("10.00"), BANKER_WINS_6_TWO) == D("19.50")
    assert settle_outcome("banker", D("10.00"), TIE_NATURAL) == ("push", D("10.00"))
    assert settle_outcome("banker", D("10.00"), PLAYER_WINS_9_3) == ("lost", D("0.00"))


def test_banker_no_commission_pays_even_money_but_half_when_banker_wins_with_six():
    assert settle("banker", D("10.00"), BANKER_WINS_7, mode="no_commission") == D("20.00")
    assert settle("banker", D("10.00"), BANKER_WINS_6_TWO, mode="no_commission") == D("15.00")
    assert settle("banker", D("10.00"), BANKER_WINS_6_THREE, mode="no_commission") == D("15.00")
    assert settle("banker", D("0.03"), BANKER_WINS_6_TWO, mode="no_commission") == D("0.04")  # 0.015 -> 0.01
    assert settle("banker", D("10.00"), TIE_NON_NATURAL, mode="no_commission") == D("10.00")
    assert settle("banker", D("10.00"), PLAYER_WINS_9_3, mode="no_commission") == D("0.00")


@pytest.mark.parametrize("bet_type", [t for t in BET_TYPES if t != "banker"])
def test_the_mode_changes_nothing_but_the_banker_bet(bet_type):
    for result in (PLAYER_WINS_9_3, BANKER_WINS_6_TWO, BANKER_WINS_6_THREE, TIE_NATURAL, BOTH_PAIRS_PERFECT):
        assert settle(bet_type, D("7.77"), result) == settle(bet_type, D("7.77"), result, mode="no_commission")


def test_tie_pays_8_to_1_by_default_and_9_to_1_when_the_paytable_says_so():
    assert settle("tie", D("10.00"), TIE_NON_NATURAL) == D("90.00")
    assert settle("tie", D("10.00"), TIE_NON_NATURAL, paytable=Paytable(tie=D(9))) == D("100.00")
    assert settle("tie", D("10.00"), PLAYER_WINS_9_3) == D("0.00")


def test_player_and_banker_pairs_pay_11_to_1_on_their_own_hand_only():
    assert settle("player_pair", D("10.00"), PLAYER_PAIR_ONLY) == D("120.00")
    assert settle("banker_pair", D("10.00"), PLAYER_PAIR_ONLY) == D("0.00")
    assert settle("banker_pair", D("10.00"), BANKER_PAIR_ONLY) == D("120.00")
    assert settle("player_pair", D("10.00"), BANKER_PAIR_ONLY) == D("0.00")


def test_any_pair_pays_5_to_1_once_even_when_both_hands_pair():
    assert settle("any_pair", D("10.00"), BOTH_PAIRS_PERFECT) == D("60.00")
    assert settle("any_pair", D("10.00"), PLAYER_PAIR_ONLY) == D("60.00")
    assert settle("any_pair", D("10.00"), BANKER_PAIR_ONLY) == D("60.00")
    assert settle("any_pair", D("10.00"), PLAYER_WINS_9_3) == D("0.00")


def test_perfect_pair_needs_same_rank_and_suit_and_pays_25_to_1_once():
    assert settle("perfect_pair", D("10.00"), BOTH_PAIRS_PERFECT) == D("260.00")
    assert settle("perfect_pair", D("10.00"), PLAYER_PAIR_ONLY) == D("0.00")
    assert settle("perfect_pair", D("10.00"), hands("KS 9H", "QD QD")) == D("260.00")


def test_natural_bets_pay_7_to_2_rounded_down_so_3_33_returns_14_98():
    assert settle("player_natural", D("3.33"), PLAYER_NATURAL_WIN) == D("14.98")
    assert settle("player_natural", D("10.00"), PLAYER_NATURAL_WIN) == D("45.00")
    assert settle("banker_natural", D("10.00"), PLAYER_NATURAL_WIN) == D("0.00")
    assert settle("banker_natural", D("3.33"), BANKER_NATURAL_WIN) == D("14.98")
    # a natural pays even when that hand loses: player 8 natural loses to banker 9 natural
    lost_natural = hands("8S KH", "9D KC")
    assert settle("player_natural", D("2.00"), lost_natural) == D("9.00")
    assert settle("player_natural", D("2.00"), PLAYER_WINS_9_3) == D("0.00")  # three-card nine is no natural


def test_bonus_pays_a_natural_win_even_money():
    assert settle("player_bonus", D("10.00"), PLAYER_NATURAL_WIN) == D("20.00")
    assert settle("banker_bonus", D("10.00"), BANKER_NATURAL_WIN) == D("20.00")
    assert settle("banker_bonus", D("10.00"), PLAYER_NATURAL_WIN) == D("0.00")


def test_bonus_pushes_a_natural_tie_and_loses_a_non_natural_tie():
    for bet in ("player_bonus", "banker_bonus"):
        assert settle_outcome(bet, D("10.00"), TIE_NATURAL) == ("push", D("10.00"))
        assert settle_outcome(bet, D("10.00"), TIE_NON_NATURAL) == ("lost", D("0.00"))


@pytest.mark.parametrize(
    ("player", "banker", "returned"),
    [
        ("AS 3C 5D", "JD 2S 6C", "0.00"),  # 9 - 8: margin 1 loses
        ("AS 3C 5D", "JD 2S 5C", "0.00"),  # margin 2
        ("AS 3C 5D", "JD 2S 4C", "0.00"),  # margin 3
        ("AS 3C 5D", "JD 2S 3C", "20.00"),  # margin 4: 1:1
        ("AS 3C 5D", "JD 2S 2C", "30.00"),  # margin 5: 2:1
        ("AS 3C 5D", "JD 2S AC", "50.00"),  # margin 6: 4:1
        ("AS 3C 5D", "JD 2S KC", "70.00"),  # margin 7: 6:1
        ("AS 3C 5D", "JD AS KC", "110.00"),  # margin 8: 10:1
        ("AS 3C 5D", "JD KS KC", "310.00"),  # margin 9: 30:1
    ],
)
def test_player_bonus_pays_non_natural_wins_by_margin(player, banker, returned):
    result = hands(player, banker)
    assert result.winner == "player"
    assert not result.player_natural
    assert settle("player_bonus", D("10.00"), result) == D(returned)


def test_banker_bonus_pays_a_three_card_nine_over_zero_thirty_to_one():
    result = hands("KS QD JH", "AH KC 8D")  # P 0 draws J -> 0; B 1 draws 8 -> 9
    assert (result.winner, result.margin, result.banker_natural) == ("banker", 9, False)
    assert settle("banker_bonus", D("10.00"), result) == D("310.00")
    assert settle("player_bonus", D("10.00"), result) == D("0.00")


def test_lucky_six_pays_12_to_1_on_two_cards_and_20_to_1_on_three():
    assert settle("lucky_six", D("10.00"), BANKER_WINS_6_TWO) == D("130.00")
    assert settle("lucky_six", D("10.00"), BANKER_WINS_6_THREE) == D("210.00")
    assert settle("lucky_six", D("10.00"), BANKER_WINS_7) == D("0.00")
    assert settle("lucky_six", D("10.00"), hands("3S 3H", "4D 2C")) == D("0.00")  # a 6-6 tie is no win


def test_two_and_three_card_lucky_six_pay_22_and_50_to_1_on_their_own_card_count():
    assert settle("lucky_six_2", D("10.00"), BANKER_WINS_6_TWO) == D("230.00")
    assert settle("lucky_six_2", D("10.00"), BANKER_WINS_6_THREE) == D("0.00")
    assert settle("lucky_six_3", D("10.00"), BANKER_WINS_6_THREE) == D("510.00")
    assert settle("lucky_six_3", D("10.00"), BANKER_WINS_6_TWO) == D("0.00")


@pytest.mark.parametrize("stake", [D("0"), D("-1.00"), D("1.001"), D("NaN"), D("Infinity"), 1.5])
def test_settle_refuses_a_stake_that_is_not_a_positive_two_decimal_amount(stake):
    with pytest.raises(ValueError, match="stake"):
        settle("player", stake, PLAYER_WINS_9_3)


def test_settle_refuses_unknown_bet_types_and_modes():
    with pytest.raises(ValueError, match="bet type"):
        settle("dragon", D("1.00"), PLAYER_WINS_9_3)
    with pytest.raises(ValueError, match="mode"):
        settle("banker", D("1.00"), PLAYER_WINS_9_3, mode="commission_free")


def test_paytable_round_trips_through_a_json_dict():
    data = json.loads(json.dumps(DEFAULT_PAYTABLE.to_dict()))
    assert Paytable.from_dict(data) == DEFAULT_PAYTABLE
    assert data["banker"] == "0.95"
    assert data["tie"] == "8"
    assert data["bonus_margins"]["9"] == "30"
    nine_to_one = Paytable.from_dict({"tie": "9"})
    assert nine_to_one.tie == D(9)
    assert nine_to_one.banker == D("0.95")


def test_paytable_refuses_unknown_keys_and_negative_odds():
    with pytest.raises(ValueError, match="unknown"):
        Paytable.from_dict({"dragon": "1"})
    with pytest.raises(ValueError, match="odds"):
        Paytable.from_dict({"tie": "-1"})
