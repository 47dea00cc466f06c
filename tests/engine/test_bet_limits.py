"""Table limits: per-type min/max, the Player/Banker difference limit, availability by shoe round."""

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.engine import BET_TYPES, DEFAULT_UNAVAILABLE_AFTER, BetViolation, Limits, bet_available, validate_bets

D = Decimal


def limits(pb: str = "500.00", **overrides) -> Limits:
    per_type = {t: (D("1.00"), D("5000.00")) for t in BET_TYPES}
    per_type.update(overrides)
    return Limits(per_type=per_type, pb_difference=D(pb))


def codes(violations: list[BetViolation]) -> list[str]:
    return [v.code for v in violations]


def test_500_on_player_allows_up_to_1000_on_banker_and_refuses_1000_01():
    existing = [("player", D("500.00"))]
    assert validate_bets([("banker", D("1000.00"))], existing, limits(), 1) == []
    refused = validate_bets([("banker", D("1000.01"))], existing, limits(), 1)
    assert codes(refused) == ["pb_difference_limit"]
    assert "500.00" in refused[0].detail


def test_pb_difference_counts_new_bets_together_and_works_both_ways():
    assert validate_bets([("player", D("500.00")), ("banker", D("1000.00"))], [], limits(), 1) == []
    assert codes(validate_bets([("player", D("500.01"))], [], limits(), 1)) == ["pb_difference_limit"]
    assert codes(validate_bets([("player", D("1000.01"))], [("banker", D("500.00"))], limits(), 1)) == [
        "pb_difference_limit"
    ]


def test_pb_difference_ignores_side_bets_and_lets_a_bet_narrow_a_wide_difference():
    existing = [("banker", D("900.00"))]  # wider than 500 (say the limit was lowered)
    assert validate_bets([("tie", D("10.00"))], existing, limits(), 1) == []
    assert validate_bets([("player", D("100.00"))], existing, limits(), 1) == []


def test_min_and_max_apply_to_the_rounds_total_stake_per_type():
    table = limits(tie=(D("5.00"), D("100.00")))
    assert codes(validate_bets([("tie", D("4.99"))], [], table, 1)) == ["below_min"]
    assert validate_bets([("tie", D("5.00"))], [], table, 1) == []
    assert validate_bets([("tie", D("1.00"))], [("tie", D("5.00"))], table, 1) == []  # total 6.00
    assert validate_bets([("tie", D("100.00"))], [], table, 1) == []
    assert codes(validate_bets([("tie", D("0.01"))], [("tie", D("100.00"))], table, 1)) == ["above_max"]
    assert codes(validate_bets([("tie", D("60.00")), ("tie", D("40.01"))], [], table, 1)) == ["above_max"]


def test_a_type_the_table_does_not_offer_is_unavailable():
    table = Limits(per_type={"player": (D("1.00"), D("10.00"))}, pb_difference=D("10.00"))
    assert codes(validate_bets([("tie", D("1.00"))], [], table, 1)) == ["bet_unavailable"]


def test_side_bets_close_after_their_shoe_round():
    table = limits()
    assert validate_bets([("player_pair", D("1.00"))], [], table, 60) == []
    assert codes(validate_bets([("player_pair", D("1.00"))], [], table, 61)) == ["bet_unavailable"]
    assert validate_bets([("lucky_six", D("1.00"))], [], table, 50) == []
    assert codes(validate_bets([("lucky_six", D("1.00"))], [], table, 51)) == ["bet_unavailable"]
    assert validate_bets([("player", D("1.00"))], [], table, 500) == []


def test_bet_available_follows_rules_md_defaults_and_a_variants_own_table():
    assert DEFAULT_UNAVAILABLE_AFTER["player_pair"] == 60
    assert DEFAULT_UNAVAILABLE_AFTER["any_pair"] == 50
    assert bet_available("banker_pair", 60)
    assert not bet_available("banker_pair", 61)
    assert bet_available("perfect_pair", 50)
    assert not bet_available("perfect_pair", 51)
    assert bet_available("tie", 1000)
    assert bet_available("lucky_six_3", 70, {"lucky_six_3": 80})
    assert bet_available("lucky_six_3", 70, {})  # an empty table: no round limits
    assert not bet_available("dragon", 1)


def test_unknown_bet_type_is_reported():
    assert codes(validate_bets([("dragon", D("1.00"))], [], limits(), 1)) == ["unknown_bet_type"]


@pytest.mark.parametrize("amount", [D("0"), D("0.00"), D("-5.00"), D("1.001"), D("NaN"), D("Infinity"), 2.5, "abc"])
def test_bad_amounts_are_invalid(amount):
    assert codes(validate_bets([("player", amount)], [], limits(), 1)) == ["invalid_amount"]


def test_every_problem_with_the_new_bets_is_listed():
    found = validate_bets([("dragon", D("1")), ("player", D("-1")), ("tie", D("1.00"))], [], limits(), 1)
    assert codes(found) == ["unknown_bet_type", "invalid_amount"]


def test_limits_round_trip_through_a_json_dict_in_the_variant_shape():
    table = limits()
    data = json.loads(json.dumps(table.to_dict()))
    assert Limits.from_dict(data) == table
    variant_shape = {
        "per_type": {"player": {"min": "1.00", "max": "5000.00"}},
        "pb_difference": "5000.00",
        "unavailable_after": {"player_pair": 60},
    }
    built = Limits.from_dict(variant_shape)
    assert built.per_type == {"player": (D("1.00"), D("5000.00"))}
    assert built.pb_difference == D("5000.00")


def test_the_rules_example_1000_on_player_then_1500_on_banker_at_a_1000_difference_limit():
    # The per-bet maximum of Player and Banker (here equal to the difference limit) does not cap a side:
    # a stake on Player raises the allowed Banker stake by the same amount.
    table = limits(pb="1000.00", player=(D("1.00"), D("1000.00")), banker=(D("1.00"), D("1000.00")))
    existing = [("player", D("1000.00"))]
    assert validate_bets([("banker", D("1500.00"))], existing, table, 1) == []
    assert validate_bets([("banker", D("2000.00"))], existing, table, 1) == []
    refused = validate_bets([("banker", D("2500.00"))], existing, table, 1)
    assert codes(refused) == ["pb_difference_limit"]
    assert refused[0].limit == D("1000.00")


def test_without_a_difference_limit_player_and_banker_keep_their_own_maximum():
    table = Limits(per_type={"player": (D("1.00"), D("100.00")), "banker": (D("1.00"), D("100.00"))})
    assert codes(validate_bets([("banker", D("100.01"))], [("player", D("100.00"))], table, 1)) == ["above_max"]


@given(
    player=st.integers(min_value=0, max_value=300_000),
    banker=st.integers(min_value=0, max_value=300_000),
    limit=st.integers(min_value=0, max_value=200_000),
    minimum=st.integers(min_value=1, max_value=500),
)
def test_player_and_banker_stakes_are_allowed_exactly_when_the_rule_says_so(player, banker, limit, minimum):
    """RULES, plainly: each side staked is at least its minimum, and |Banker − Player| is at most the limit."""
    table = Limits(
        per_type={"player": (D(minimum), D(max(minimum, limit))), "banker": (D(minimum), D(max(minimum, limit)))},
        pb_difference=D(limit),
    )
    new = [(side, D(amount)) for side, amount in (("player", player), ("banker", banker)) if amount]
    if not new:
        return
    allowed = all(amount >= minimum for _side, amount in new) and abs(banker - player) <= limit
    assert (validate_bets(new, [], table, 1) == []) == allowed


@given(
    first=st.integers(min_value=1, max_value=50_000),
    second=st.integers(min_value=1, max_value=50_000),
    limit=st.integers(min_value=0, max_value=20_000),
)
def test_a_second_batch_is_judged_on_the_rounds_totals(first, second, limit):
    table = Limits(per_type={"player": (D(1), D(1)), "banker": (D(1), D(1))}, pb_difference=D(limit))
    existing = [("player", D(first))]
    widened = abs(second - first) > limit and abs(second - first) > first
    ok = validate_bets([("banker", D(second))], existing, table, 1) == []
    assert ok == (not widened)


# ── a player's personal maximum (docs/rules.md "Personal limits") ──


def test_a_personal_maximum_caps_the_rounds_total_on_each_type_at_and_one_cent_past_it():
    personal = D("100.00")
    assert validate_bets([("tie", D("100.00"))], [], limits(), 1, personal) == []
    (refused,) = validate_bets([("tie", D("0.01"))], [("tie", D("100.00"))], limits(), 1, personal)
    assert (refused.code, refused.bet_type, refused.limit) == ("above_max", "tie", personal)
    assert refused.detail == "Your personal maximum stake on tie in a round is 100.00 (this would make it 100.01)."


def test_a_personal_maximum_caps_player_and_banker_even_under_a_difference_limit():
    # 100 on each side keeps the difference at 0, well within 500: only the personal maximum refuses it.
    assert validate_bets([("player", D("100.00")), ("banker", D("100.00"))], [], limits(), 1, D("100.00")) == []
    refused = validate_bets([("player", D("100.01")), ("banker", D("100.01"))], [], limits(), 1, D("100.00"))
    assert [(v.code, v.bet_type, v.limit) for v in refused] == [
        ("above_max", "player", D("100.00")),
        ("above_max", "banker", D("100.00")),
    ]


def test_a_personal_maximum_above_the_tables_never_raises_it():
    (refused,) = validate_bets([("tie", D("5000.01"))], [], limits(), 1, D("9000.00"))
    assert (refused.code, refused.limit) == ("above_max", D("5000.00"))
    assert "personal" not in refused.detail


@given(
    personal=st.decimals(min_value=D("0.01"), max_value=D("6000"), places=2),
    stake=st.decimals(min_value=D("1.00"), max_value=D("6000"), places=2),
)
def test_a_bet_passes_with_a_personal_maximum_only_if_it_passes_without_and_stays_within_it(personal, stake):
    with_personal = validate_bets([("tie", stake)], [], limits(), 1, personal)
    without = validate_bets([("tie", stake)], [], limits(), 1)
    assert (with_personal == []) == (without == [] and stake <= personal)
