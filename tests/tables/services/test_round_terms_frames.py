"""What the round says is always true: ``round.opened`` and the snapshot carry the round's own paytable (the spots'
labels) and limits, an operator's change shows from the next round on; pause and cancel frames say why (a code,
never the operator's words)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tables.engine import Paytable, payout_labels
from tables.models import Round
from tables.selectors.tables import player_snapshot, table_snapshot
from tables.services import controls, ticker
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table, latest_round, make_player, place

pytestmark = pytest.mark.django_db


@pytest.fixture
def frames(monkeypatch) -> list[dict[str, Any]]:
    """Every table event the services announce, in order (captured where they are handed over)."""
    out: list[dict[str, Any]] = []

    def keep(_table_id: int, event: dict[str, Any]) -> None:
        out.append(event)

    for where in ("tables.services.transitions", "tables.services.controls", "tables.events"):
        monkeypatch.setattr(f"{where}.table_event", keep)
    return out


def of(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == kind]


def test_round_opened_and_the_snapshot_carry_the_rounds_paytable_and_an_operator_change_shows_next_round(frames):
    table = fast_table()
    clock = Clock()
    first = drive_to_state(table, clock, "betting")
    opened = of(frames, "round.opened")[-1]
    assert opened["round_id"] == first.pk
    assert opened["paytable"]["banker"] == "0.95"
    assert opened["pays"]["banker"] == {"traditional": "0.95:1", "no_commission": "1:1 · 6 → 1:2"}
    assert opened["pays"]["tie"]["traditional"] == "8:1"
    assert opened["pays"] == payout_labels(Paytable.from_dict(first.terms["paytable"]))
    assert opened["limits"]["per_type"]["tie"] == {"min": "1.00", "max": "5000.00"}
    assert opened["bonus_margins"] == [m for m, _ in Paytable.from_dict(first.terms["paytable"]).bonus_margins]

    # The operator changes the variant (and a limit) during the round: this round keeps its labels…
    variant = table.variant
    variant.pays_banker = Decimal("0.90")
    variant.pays_tie = Decimal(9)
    variant.save()
    variant.bets.filter(bet_type="tie").update(max_stake=Decimal("250.00"))
    snap = table_snapshot(table.pk)
    assert snap["round"]["id"] == first.pk
    assert snap["round"]["pays"]["banker"]["traditional"] == "0.95:1"
    assert snap["round"]["pays"]["tie"]["traditional"] == "8:1"
    assert snap["round"]["limits"]["per_type"]["tie"]["max"] == "5000.00"

    # …and the next round opens with the new ones, in its frame and in the snapshot.
    drive_to_state(table, clock, "settled")
    ticker.table_step(table_id=table.pk, now=clock.now)
    second = drive_to_state(table, clock, "betting")
    assert second.pk != first.pk
    opened = of(frames, "round.opened")[-1]
    assert opened["round_id"] == second.pk
    assert opened["pays"]["banker"]["traditional"] == "0.9:1"
    assert opened["pays"]["tie"]["traditional"] == "9:1"
    assert opened["paytable"]["tie"] == "9.00"
    assert opened["limits"]["per_type"]["tie"]["max"] == "250.00"
    snap = table_snapshot(table.pk)
    assert snap["round"]["pays"]["banker"]["traditional"] == "0.9:1"
    assert snap["last_round"]["pays"]["banker"]["traditional"] == "0.95:1"


def test_a_pause_before_dealing_says_the_round_was_cancelled_because_of_the_pause(frames):
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    controls.table_pause(table_id=table.pk, reason="Dealer change: internal words")

    cancelled = of(frames, "round.cancelled")[-1]
    assert (cancelled["round_id"], cancelled["cause"]) == (round_.pk, "paused")
    paused = of(frames, "table.paused")[-1]
    assert (paused["round_id"], paused["round_number"], paused["round_state"], paused["by"]) == (
        round_.pk,
        round_.number,
        "cancelled",
        "operator",
    )
    assert "internal" not in str(frames)  # the operator's own words never reach players
    snap = table_snapshot(table.pk)
    snap.update(player_snapshot(alice, snap))
    assert (snap["round"]["state"], snap["round"]["cause"]) == ("cancelled", "paused")
    assert [(b["status"], b["amount"]) for b in snap["my_bets"]] == [("refunded", "10.00")]


def test_an_operator_cancel_and_a_fault_say_so(frames):
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    controls.round_cancel(round_id=round_.pk, reason="Misdeal: internal words")
    assert of(frames, "round.cancelled")[-1]["cause"] == "operator"
    assert table_snapshot(table.pk)["round"]["cause"] == "operator"

    # A fault while dealing pauses the round: its cause is the fault, then an operator cancel is the operator's.
    nxt = drive_to_state(table, clock, "betting")
    drive(table, clock, lambda: (r := latest_round(table)).state == "dealing" and len(r.cards) >= 2)
    controls.table_pause(table_id=table.pk, reason="fault: scanner", fault=True)
    paused = of(frames, "table.paused")[-1]
    assert (paused["by"], paused["round_state"], paused["round_number"]) == ("fault", "paused", nxt.number)
    snap = table_snapshot(table.pk)
    assert (snap["round"]["state"], snap["round"]["cause"]) == ("paused", "fault")
    controls.round_cancel(round_id=nxt.pk, reason="void")
    assert of(frames, "round.cancelled")[-1]["cause"] == "operator"
    assert table_snapshot(table.pk)["round"]["cause"] == "operator"
    assert Round.objects.get(pk=nxt.pk).state == "cancelled"
    assert "internal" not in str(frames)


def test_a_fault_before_dealing_cancels_with_the_fault_as_cause(frames):
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    controls.table_pause(table_id=table.pk, reason="fault: boom", fault=True)
    assert of(frames, "round.cancelled")[-1]["cause"] == "fault"
    assert table_snapshot(table.pk)["round"]["cause"] == "fault"
    assert table_snapshot(table.pk)["round"]["id"] == round_.pk


def test_round_result_and_the_snapshot_say_what_each_spot_did_by_the_rounds_own_paytable(frames):
    """``outcomes``: every bet type in both modes, from the engine (``outcome_marks``) and the round's own paytable,
    never the variant's of now; the player's settled bets agree with it, and a round without a result has none."""
    from tables.engine import BET_TYPES, DEFAULT_PAYTABLE, MODES, facts_of, outcome_marks
    from tables.selectors.tables import round_result_of

    table = fast_table()
    alice = make_player("alice", "10000.00")
    clock = Clock()
    margin_round_seen = False
    for _ in range(40):
        round_ = drive_to_state(table, clock, "betting")
        assert table_snapshot(table.pk)["round"]["outcomes"] is None
        place(
            alice, round_.pk, ("player", "10.00"), ("tie", "1.00"), ("player_bonus", "1.00"), ("banker_bonus", "1.00")
        )
        place(alice, round_.pk, ("banker", "10.00"), mode="no_commission")
        # This round's own terms pay no Bonus margin (the variant, and every other round, pay 4 to 9).
        terms = round_.terms
        terms["paytable"]["bonus_margins"] = {}
        Round.objects.filter(pk=round_.pk).update(terms=terms)
        round_ = drive_to_state(table, clock, "result")
        result = of(frames, "round.result")[-1]
        assert result["round_id"] == round_.pk
        facts = facts_of(round_result_of(round_))
        expected = outcome_marks(facts, Paytable.from_dict(terms["paytable"]))
        assert result["outcomes"] == expected
        assert set(result["outcomes"]) == set(BET_TYPES)
        assert all(set(by_mode) == set(MODES) for by_mode in result["outcomes"].values())
        assert table_snapshot(table.pk)["round"]["outcomes"] == expected

        drive_to_state(table, clock, "settled")
        snap = table_snapshot(table.pk)
        assert snap["round"]["outcomes"] == expected
        for bet in player_snapshot(alice, snap)["my_bets"]:
            assert bet["status"] == expected[bet["type"]][bet["mode"]], bet
        # A non-natural win by 4 or more: the variant's paytable would pay the Bonus bet, the round's does not.
        default = outcome_marks(facts, DEFAULT_PAYTABLE)
        side = f"{facts.winner}_bonus"
        if (
            facts.winner != "tie"
            and default[side]["traditional"] == "won"
            and not (facts.player_natural or facts.banker_natural)
        ):
            assert expected[side] == {"traditional": "lost", "no_commission": "lost"}
            margin_round_seen = True
            break
        ticker.table_step(table_id=table.pk, now=clock.now)
    assert margin_round_seen
