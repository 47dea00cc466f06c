"""Pause, resume and cancel (docs/rules.md, "Disconnection and errors"): faults and the operator."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from tables import engine
from tables.models import Round, Shoe, Table
from tables.services import controls, settlement, ticker
from tests.tables.services.rounds_kit import (
    Clock,
    balance_of,
    drive,
    drive_to_state,
    fast_table,
    latest_round,
    make_player,
    place,
)

pytestmark = pytest.mark.django_db


def planned_cards(round_: Round) -> list[str]:
    """The cards the round must end with: the ones dealt, then what the persisted shoe holds next."""
    probe = engine.ShoeState.from_dict(Shoe.objects.get(pk=round_.shoe_id).state)
    dealt = [engine.Card.parse(c["card"]) for c in round_.cards]
    upcoming = [probe.draw() for _ in range(6 - len(dealt))]
    result = engine.deal_round(iter([*dealt, *upcoming]))
    return [str(card) for _hand, card in result.cards_in_deal_order()]


def deal_cards(table: Table, clock: Clock, count: int) -> Round:
    drive(table, clock, lambda: (r := latest_round(table)).state == "dealing" and len(r.cards) >= count)
    return latest_round(table)


def test_an_operator_pause_during_betting_cancels_the_round_and_refunds_every_stake():
    table = fast_table()
    alice, bob = make_player("alice", "100.00"), make_player("bob", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"), ("player_pair", "2.00"))
    place(bob, round_.pk, ("banker", "30.00"))

    done = controls.table_pause(table_id=table.pk, reason="Dealer change")

    assert done == {"paused": True, "round_id": round_.pk, "round": "cancelled"}
    round_.refresh_from_db()
    assert round_.state == "cancelled"
    assert round_.reason == "Dealer change"
    assert balance_of(alice) == Decimal("100.00")
    assert balance_of(bob) == Decimal("100.00")
    assert set(round_.bets.values_list("outcome__status", flat=True)) == {"refunded"}
    table.refresh_from_db()
    assert (table.status, table.status_reason, table.next_action_at) == ("paused", "Dealer change", None)


def test_a_paused_table_opens_no_round_until_resumed():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "betting")
    controls.table_pause(table_id=table.pk, reason="Break")
    clock.advance(120)

    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert controls.table_pause(table_id=table.pk, reason="again") == {"paused": False, "round_id": None, "round": None}

    assert controls.table_resume(table_id=table.pk)["resumed"] is True
    assert controls.table_resume(table_id=table.pk)["resumed"] is False
    drive_to_state(table, clock, "betting")
    assert Round.objects.filter(table=table).values_list("state", flat=True).order_by("id")[::1] == [
        "cancelled",
        "betting",
    ]


def test_a_pause_while_dealing_holds_the_round_and_resume_continues_from_the_persisted_cards():
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("banker", "20.00"))
    dealing = deal_cards(table, clock, 2)
    expected = planned_cards(dealing)

    done = controls.table_pause(table_id=table.pk, reason="Card jammed")
    assert done["round"] == "paused"
    paused = Round.objects.get(pk=round_.pk)
    assert (paused.state, paused.paused_from, len(paused.cards)) == ("paused", "dealing", 2)
    clock.advance(300)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert len(Round.objects.get(pk=round_.pk).cards) == 2

    assert controls.table_resume(table_id=table.pk, reason="Fixed") == {"resumed": True, "round_id": round_.pk}
    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "settled")

    settled = Round.objects.get(pk=round_.pk)
    assert [c["card"] for c in settled.cards] == expected
    bet = settled.bets.get()
    assert bet.status in {"won", "lost", "push"}
    assert balance_of(alice) == Decimal("80.00") + bet.payout


def test_pause_then_cancel_refunds_every_stake_and_the_table_waits_for_resume():
    table = fast_table()
    alice, bob = make_player("alice", "100.00"), make_player("bob", "50.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "40.00"), ("tie", "5.00"))
    place(bob, round_.pk, ("banker", "50.00"))
    deal_cards(table, clock, 3)
    controls.table_pause(table_id=table.pk, reason="Shoe problem")

    assert controls.round_cancel(round_id=round_.pk, reason="Shoe problem: round void") == 3

    round_.refresh_from_db()
    assert round_.state == "cancelled"
    assert (balance_of(alice), balance_of(bob)) == (Decimal("100.00"), Decimal("50.00"))
    assert controls.round_cancel(round_id=round_.pk, reason="again") == 0
    assert (balance_of(alice), balance_of(bob)) == (Decimal("100.00"), Decimal("50.00"))
    assert Table.objects.get(pk=table.pk).status == "paused"
    controls.table_resume(table_id=table.pk)
    assert latest_round(drive_to_state(table, clock, "betting").table).number == 2


def test_the_operator_controls_stamp_the_now_they_are_given():
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    clock.advance(1)

    assert controls.table_pause(table_id=table.pk, reason="Dealer change", now=clock.now)["round"] == "cancelled"
    assert Round.objects.get(pk=round_.pk).cancelled_at == clock.now
    clock.advance(60)
    assert controls.table_resume(table_id=table.pk, now=clock.now)["resumed"] is True
    assert Table.objects.get(pk=table.pk).next_action_at == clock.now

    second = drive_to_state(table, clock, "betting")
    clock.advance(1)
    assert controls.round_cancel(round_id=second.pk, reason="Operator void", now=clock.now) == 0
    assert Round.objects.get(pk=second.pk).cancelled_at == clock.now
    assert Table.objects.get(pk=table.pk).next_action_at == clock.now


def test_a_fault_while_dealing_pauses_the_table_and_never_guesses_a_card():
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    dealing = deal_cards(table, clock, 3)
    expected = planned_cards(dealing)
    shoe = Shoe.objects.get(pk=dealing.shoe_id)
    good_state = shoe.state
    Shoe.objects.filter(pk=shoe.pk).update(state={"unreadable": True})  # the "scanner" cannot read the shoe

    clock.advance(1)
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "faulted"

    paused = Round.objects.get(pk=round_.pk)
    assert (paused.state, paused.paused_from, len(paused.cards)) == ("paused", "dealing", 3)
    assert paused.reason.startswith("fault: ")
    table.refresh_from_db()
    assert table.status == "paused"
    assert table.status_reason.startswith("fault: ")
    assert round_.bets.get().status == "open"

    Shoe.objects.filter(pk=shoe.pk).update(state=good_state)  # fixed by the operator
    controls.table_resume(table_id=table.pk, reason="Shoe re-read")
    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "settled")
    assert [c["card"] for c in Round.objects.get(pk=round_.pk).cards] == expected


def test_a_fault_before_dealing_started_cancels_the_round_refunds_it_and_pauses_the_table():
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("banker", "60.00"))
    Shoe.objects.filter(pk=round_.shoe_id).update(state={"unreadable": True})

    steps = drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state != "betting")
    steps += [ticker.table_step(table_id=table.pk, now=clock.now)]

    assert steps == ["closed", "faulted"]
    round_.refresh_from_db()
    assert round_.state == "cancelled"
    assert round_.cards == []
    assert round_.dealing_started_at is None
    assert balance_of(alice) == Decimal("100.00")
    assert round_.bets.get().status == "refunded"
    assert Table.objects.get(pk=table.pk).status == "paused"


def test_a_fault_while_settling_pauses_the_round_at_its_result_and_resume_pays_once(monkeypatch):
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    real_settle = settlement.round_settle

    def broken(*, round_id: int) -> int:
        raise RuntimeError("payments offline")

    monkeypatch.setattr(settlement, "round_settle", broken)
    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "result")
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "faulted"
    paused = Round.objects.get(pk=round_.pk)
    assert (paused.state, paused.paused_from) == ("paused", "result")

    monkeypatch.setattr(settlement, "round_settle", real_settle)
    controls.table_resume(table_id=table.pk)
    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "settled")
    bet = round_.bets.get()
    assert balance_of(alice) == Decimal("90.00") + bet.payout


def test_the_operator_commands_pause_resume_and_cancel(capsys):
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    deal_cards(table, clock, 1)

    call_command("table_pause", str(table.pk), "--reason", "Inspection")
    assert f"table {table.pk} paused; round {round_.pk} paused" in capsys.readouterr().out
    call_command("round_cancel", str(round_.pk), "--reason", "Void after inspection")
    assert "1 bet(s) refunded" in capsys.readouterr().out
    assert balance_of(alice) == Decimal("100.00")
    call_command("table_resume", str(table.pk), "--reason", "Inspection done")
    assert f"table {table.pk} resumed" in capsys.readouterr().out
    assert Table.objects.get(pk=table.pk).status == "open"

    with pytest.raises(CommandError, match="already cancelled"):
        call_command("round_cancel", str(round_.pk), "--reason", "again")
    with pytest.raises(CommandError, match="no table"):
        call_command("table_pause", "999999", "--reason", "Inspection")
    with pytest.raises(CommandError, match="not resumed"):
        call_command("table_resume", str(table.pk), "--reason", "again")


def test_a_round_being_dealt_cannot_be_cancelled_until_the_table_is_paused():
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    deal_cards(table, clock, 2)
    with pytest.raises(controls.RoundNotCancellable):
        controls.round_cancel(round_id=round_.pk, reason="too late")
    with pytest.raises(CommandError, match="Pause the table first"):
        call_command("round_cancel", str(round_.pk), "--reason", "Too late")
    round_.refresh_from_db()
    assert round_.state == "dealing"
    assert balance_of(alice) == Decimal("90.00")
    controls.table_pause(table_id=table.pk, reason="Scanner")
    assert controls.round_cancel(round_id=round_.pk, reason="Scanner fault") == 1
    assert balance_of(alice) == Decimal("100.00")
