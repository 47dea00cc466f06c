"""Scoreboard roads against worked examples built by hand (see the conventions in tables/engine/roads.py)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from tables.engine import parse_cards, roads
from tables.engine.tableau import RoundResult

NAMES = {"B": "banker", "P": "player", "T": "tie"}


def board(seq: str, **flags_by_index):
    return roads([{"winner": NAMES[s], **flags_by_index.get(f"r{i}", {})} for i, s in enumerate(seq.split())])


def marks(road):
    return [(c["color"][0], c["col"], c["row"]) for c in road]


def big(road):
    return [(c["winner"][0], c["col"], c["row"], c["ties"]) for c in road]


# The worked example: B B P B B B P P B P. Big Road logical columns: B×2, P×1, B×3, P×2, B×1, P×1.
EXAMPLE = "B B P B B B P P B P"


def test_big_road_puts_a_streak_down_a_column_and_the_other_side_in_the_next_column():
    assert big(board(EXAMPLE)["big_road"]) == [
        ("b", 0, 0, 0),
        ("b", 0, 1, 0),
        ("p", 1, 0, 0),
        ("b", 2, 0, 0),
        ("b", 2, 1, 0),
        ("b", 2, 2, 0),
        ("p", 3, 0, 0),
        ("p", 3, 1, 0),
        ("b", 4, 0, 0),
        ("p", 5, 0, 0),
    ]


def test_big_eye_boy_of_the_worked_example():
    # entry (col,row) -> mark: (2,0) len1 vs len0: 1≠2 blue; (2,1) col1 ends at row 0: blue;
    # (2,2) col1 shorter still: red; (3,0) 3≠1 blue; (3,1) col2 has row 1: red; (4,0) 2≠3 blue; (5,0) 1≠2 blue
    assert marks(board(EXAMPLE)["big_eye_boy"]) == [
        ("b", 0, 0),
        ("b", 0, 1),
        ("r", 1, 0),
        ("b", 2, 0),
        ("r", 3, 0),
        ("b", 4, 0),
        ("b", 4, 1),
    ]


def test_small_road_of_the_worked_example():
    # starts at (2,1): col0 has row 1: red; (2,2) col0 ends at row 1: blue; (3,0) 3 vs 2 blue;
    # (3,1) col1 ends at row 0: blue; (4,0) 2 vs 1 blue; (5,0) 1 vs 3 blue
    assert marks(board(EXAMPLE)["small_road"]) == [
        ("r", 0, 0),
        ("b", 1, 0),
        ("b", 1, 1),
        ("b", 1, 2),
        ("b", 1, 3),
        ("b", 1, 4),
    ]


def test_cockroach_pig_of_the_worked_example():
    # starts at (3,1): col0 has row 1: red; (4,0) 2 vs 2 red; (5,0) 1 vs 1 red
    assert marks(board(EXAMPLE)["cockroach_pig"]) == [("r", 0, 0), ("r", 0, 1), ("r", 0, 2)]


def test_ask_road_of_the_worked_example():
    # Banker next opens column 6: BEB 1 vs 1 red, Small 1 vs 2 blue, Cockroach 1 vs 3 blue.
    # Player next is (5,1): BEB col4 ends at row 0 blue, Small col3 has row 1 red, Cockroach col2 has row 1 red.
    assert board(EXAMPLE)["ask"] == {
        "banker": {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": "blue"},
        "player": {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": "red"},
    }


def test_derived_roads_start_at_column_k_row_1_or_column_k_plus_1_row_0():
    # B P B: columns of one: Big Eye Boy starts at (2,0): 1 vs 1 red; Small Road would need column 3.
    three = board("B P B")
    assert marks(three["big_eye_boy"]) == [("r", 0, 0)]
    assert three["small_road"] == []
    assert three["ask"]["banker"]["small_road"] == "blue"  # B at (2,1): column 0 ends at row 0
    assert three["ask"]["player"]["small_road"] == "red"  # P opens column 3: 1 vs 1
    # B B P P: Big Eye Boy starts at (1,1): column 0 has row 1: red
    assert marks(board("B B P P")["big_eye_boy"]) == [("r", 0, 0)]


def test_a_long_streak_turns_right_at_the_sixth_row_as_a_dragon_tail():
    road = board("B B B B B B B B P P P P P P P B")["big_road"]
    assert big(road) == [
        ("b", 0, 0, 0),
        ("b", 0, 1, 0),
        ("b", 0, 2, 0),
        ("b", 0, 3, 0),
        ("b", 0, 4, 0),
        ("b", 0, 5, 0),
        ("b", 1, 5, 0),  # the tail runs right along the bottom row
        ("b", 2, 5, 0),
        ("p", 1, 0, 0),  # the next streak starts next to where the last one started
        ("p", 1, 1, 0),
        ("p", 1, 2, 0),
        ("p", 1, 3, 0),
        ("p", 1, 4, 0),
        ("p", 2, 4, 0),  # row 5 is taken by the first tail: this one turns right one row higher
        ("p", 3, 4, 0),
        ("b", 2, 0, 0),
    ]
    assert [c["streak"] for c in road] == [0] * 8 + [1] * 7 + [2]


def test_derived_roads_read_logical_columns_even_when_the_big_road_has_a_tail():
    # B×7 then P: Big Eye Boy needs column 2 or (1,1): none yet; P P: (1,1) column 0 has row 1: red
    assert board("B B B B B B B P")["big_eye_boy"] == []
    assert marks(board("B B B B B B B P P")["big_eye_boy"]) == [("r", 0, 0)]


def test_ties_are_counted_on_the_last_cell_and_leading_ties_on_the_first():
    result = board("T T B T P T T T B")
    assert big(result["big_road"]) == [("b", 0, 0, 3), ("p", 1, 0, 3), ("b", 2, 0, 0)]
    assert result["leading_ties"] == 2
    only_ties = board("T T")
    assert only_ties["big_road"] == []
    assert only_ties["leading_ties"] == 2


def test_pairs_are_dots_on_their_cells_and_the_bead_plate_shows_every_round():
    result = board("B T P", r0={"banker_pair": True}, r2={"player_pair": True, "banker_pair": True})
    cells = result["big_road"]
    assert (cells[0]["banker_pair"], cells[0]["player_pair"]) == (True, False)
    assert (cells[1]["banker_pair"], cells[1]["player_pair"]) == (True, True)
    bead = result["bead_plate"]
    assert [(b["winner"], b["col"], b["row"]) for b in bead] == [("banker", 0, 0), ("tie", 0, 1), ("player", 0, 2)]


def test_the_bead_plate_fills_six_rows_then_the_next_column():
    bead = board(" ".join(["B"] * 8))["bead_plate"]
    assert [(b["col"], b["row"]) for b in bead][5:] == [(0, 5), (1, 0), (1, 1)]


def test_derived_roads_place_marks_like_the_big_road_with_tails():
    # alternating single wins: every Big Eye Boy mark is red (1 vs 1), ten of them turn right at the bottom
    result = board(" ".join(["B", "P"] * 7))
    assert marks(result["big_eye_boy"]) == [("r", 0, r) for r in range(6)] + [("r", c, 5) for c in range(1, 7)]


def test_roads_accept_round_results_and_their_flags_and_are_json_able():
    rounds = [
        RoundResult.from_cards(parse_cards("8S KH"), parse_cards("7D KC")),
        RoundResult.from_cards(parse_cards("4S 4H"), parse_cards("9D KC")),
        RoundResult.from_cards(parse_cards("7S KH"), parse_cards("7D KC")),
    ]
    from_results = roads(rounds)
    assert from_results == roads([r.flags() for r in rounds])
    json.dumps(from_results)
    assert from_results["bead_plate"][0]["natural"] is True
    assert roads([]) == {
        "bead_plate": [],
        "big_road": [],
        "leading_ties": 0,
        "big_eye_boy": [],
        "small_road": [],
        "cockroach_pig": [],
        "ask": {side: dict.fromkeys(("big_eye_boy", "small_road", "cockroach_pig")) for side in ("banker", "player")},
    }


@given(st.lists(st.sampled_from(["banker", "player", "tie"]), max_size=90))
def test_the_ask_road_gives_opposite_colours_for_banker_and_player(winners):
    ask = roads([{"winner": w} for w in winners])["ask"]
    for name in ("big_eye_boy", "small_road", "cockroach_pig"):
        b, p = ask["banker"][name], ask["player"][name]
        assert (b is None) == (p is None)
        if b is not None and p is not None:
            assert b != p


@given(st.lists(st.sampled_from(["banker", "player", "tie"]), max_size=90))
def test_no_two_cells_of_a_road_share_a_place_and_the_ask_road_predicts_the_next_mark(winners):
    result = roads([{"winner": w} for w in winners])
    for name in ("big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        places = [(c["col"], c["row"]) for c in result[name]]
        assert len(places) == len(set(places))
        assert all(0 <= r < 6 for _, r in places)
    for side in ("banker", "player"):
        after = roads([{"winner": w} for w in [*winners, side]])
        for name in ("big_eye_boy", "small_road", "cockroach_pig"):
            grew = len(after[name]) > len(result[name])
            predicted = result["ask"][side][name]
            assert grew == (predicted is not None)
            if grew:
                assert after[name][-1]["color"] == predicted
