"""Cards, totals, deal order, naturals and the examples of docs/rules.md."""

import json

import pytest

from tables.engine import Card, NotEnoughCards, Rank, RoundResult, Suit, deal_round, hand_total, parse_cards


def deal(codes: str) -> RoundResult:
    return deal_round(iter(parse_cards(codes)))


def test_card_code_round_trips_through_str_and_parse():
    for code in ("5H", "KD", "TS", "AC", "9D", "QH", "JC"):
        assert str(Card.parse(code)) == code


def test_card_parse_accepts_lowercase_and_ten_written_out():
    assert Card.parse("5h") == Card(Rank.FIVE, Suit.HEARTS)
    assert Card.parse("10d") == Card.parse("TD")


@pytest.mark.parametrize("bad", ["", "1H", "5X", "ZZ", "5HH", "H5"])
def test_card_parse_refuses_what_is_not_a_card(bad):
    with pytest.raises(ValueError, match="not a card code"):
        Card.parse(bad)


def test_point_values_are_ace_one_pips_face_value_tens_and_faces_zero():
    values = {str(c)[0]: c.value for c in parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")}
    assert values == {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9} | dict.fromkeys("TJQK", 0)


def test_suits_never_score():
    assert {Card(Rank.SEVEN, s).value for s in Suit} == {7}


def test_a_hand_total_is_the_units_digit_so_eight_plus_nine_is_seven():
    assert hand_total(parse_cards("8S 9H")) == 7
    assert hand_total(parse_cards("KS QH")) == 0
    assert hand_total(parse_cards("9S 9H 9D")) == 7


def test_appendix_example_deals_player_banker_player_banker():
    result = deal("5H KD 3C 9S 8D 2C")
    assert [str(c) for c in result.player_cards] == ["5H", "3C"]
    assert [str(c) for c in result.banker_cards] == ["KD", "9S"]
    assert (result.player_total, result.banker_total, result.winner) == (8, 9, "banker")


def test_player_ace_three_five_makes_nine_and_beats_banker_jack_two_ace_making_three():
    result = deal("AS JD 3C 2S 5D AC")
    assert [str(c) for c in result.player_cards] == ["AS", "3C", "5D"]
    assert [str(c) for c in result.banker_cards] == ["JD", "2S", "AC"]
    assert (result.player_total, result.banker_total, result.winner) == (9, 3, "player")
    assert result.margin == 6


def test_a_natural_on_either_side_stops_the_draw_for_both_hands():
    cards = iter(parse_cards("8S 2H KD 3C 4H 4D"))
    result = deal_round(cards)
    assert len(result.player_cards) == len(result.banker_cards) == 2
    assert result.player_natural
    assert not result.banker_natural
    assert [str(c) for c in cards] == ["4H", "4D"]  # untouched, still in the shoe


def test_banker_natural_stops_a_player_who_would_draw_on_zero():
    result = deal("KS 9H QD TC 5S 5D")
    assert (result.player_total, result.banker_total, len(result.player_cards)) == (0, 9, 2)


def test_equal_totals_are_a_tie():
    result = deal("7S 7H KD KC")
    assert result.winner == "tie"
    assert result.margin == 0


def test_deal_round_takes_exactly_the_cards_the_round_needs():
    cards = iter(parse_cards("2S 3H 2D 3C 4S 4H 9S"))  # P 4 draws, B 6 with player 3rd 4: stands
    result = deal_round(cards)
    assert len(result.player_cards) == 3
    assert len(result.banker_cards) == 2
    assert [str(c) for c in cards] == ["4H", "9S"]


def test_running_out_of_cards_mid_round_is_an_error():
    with pytest.raises(NotEnoughCards):
        deal("2S 3H 2D")


def test_cards_in_deal_order_are_p1_b1_p2_b2_then_third_cards():
    result = deal("AS JD 3C 2S 5D AC")
    assert [(h, str(c)) for h, c in result.cards_in_deal_order()] == [
        ("player", "AS"),
        ("banker", "JD"),
        ("player", "3C"),
        ("banker", "2S"),
        ("player", "5D"),
        ("banker", "AC"),
    ]


def test_from_cards_rebuilds_the_same_result():
    result = deal("AS JD 3C 2S 5D AC")
    assert RoundResult.from_cards(result.player_cards, result.banker_cards) == result


@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ("AS 3C", "JD 2S"),  # player on 4 must draw
        ("8S KC 5D", "JD 2S"),  # player natural never draws
        ("AS 3C 5D", "JD 2S"),  # banker on 2 must draw
        ("6S KC", "7D KS 2C"),  # banker stands on 7
        ("AS", "JD 2S"),
    ],
)
def test_from_cards_refuses_hands_the_rules_could_not_deal(player, banker):
    with pytest.raises(ValueError, match="hand"):
        RoundResult.from_cards(parse_cards(player), parse_cards(banker))


def test_flags_are_json_able_and_name_pairs_naturals_lucky_six_and_margin():
    result = deal("4S 4H 4D 2H KC 5C")  # P 4,4 = 8 natural; B 4H,2H = 6 -> player wins
    flags = result.flags()
    json.dumps(flags)
    assert flags["player_pair"] is True
    assert flags["player_perfect_pair"] is False
    assert flags["player_natural"] is True
    assert flags["banker_natural"] is False
    assert flags["winner"] == "player"
    assert flags["margin"] == 2
    assert flags["lucky_six"] is None


def test_lucky_six_flag_counts_banker_cards():
    two_card = deal("KS 4H 5D 2C 9H")  # P 5 draws 9 -> 4; B 6 stands on a 9: Banker 6 beats 4 on two cards
    assert (two_card.winner, two_card.banker_total, two_card.lucky_six) == ("banker", 6, 2)
    three_card = deal("KS 3H 4D KC KH 3D")  # P 4 draws K -> 4; B 3 draws 3 -> 6 beats 4 on three cards
    assert (three_card.winner, three_card.banker_total, three_card.lucky_six) == ("banker", 6, 3)
    tie_on_six = deal("3S 4H 3D 2C")  # both stand on 6
    assert (tie_on_six.winner, tie_on_six.lucky_six) == ("tie", None)
