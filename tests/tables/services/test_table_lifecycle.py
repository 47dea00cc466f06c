"""Closing, reopening, retiring a table and its opening hours (tables.services.controls), and what players see
of it: only the tables they may join, and a fixed public message, never the operator's reason."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.core.management import CommandError, call_command

from baccarat_site.errors import NotFound
from tables import engine
from tables.models import Round, Shoe, Table
from tables.selectors.lobby import lobby_tiles
from tables.selectors.tables import due_table_ids, table_detail, table_exists, table_list, table_snapshot
from tables.services import controls, ticker
from tests.factories import make_user, make_variant
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


def audit_actions(table: Table) -> list[tuple[str, object, str]]:
    return [
        (e.additional_data["action"], e.actor, e.additional_data["reason"])
        for e in LogEntry.objects.get_for_object(table).filter(additional_data__has_key="action").order_by("id")
    ]


def idle_steps(table: Table, clock: Clock, seconds: float = 60) -> list[str]:
    """Every step the ticker takes over ``seconds`` of a fake clock."""
    steps = []
    for _ in range(int(seconds)):
        clock.advance(1)
        while (step := ticker.table_step(table_id=table.pk, now=clock.now)) is not None:
            steps.append(step)
    return steps


def test_closing_at_the_end_of_the_round_settles_that_round_as_usual_then_opens_no_new_one():
    table = fast_table()
    operator = make_user("op")
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("banker", "20.00"))

    done = controls.table_close(table_id=table.pk, when="round", reason="Dealer's shift ends", actor=operator)

    assert done == {"closed": False, "closing": True}
    table.refresh_from_db()
    assert (table.status, table.close_after, table.status_reason) == ("open", "round", "Dealer's shift ends")
    steps = drive(table, clock, lambda: Table.objects.get(pk=table.pk).status == "closed")
    assert steps[-1] == "closed_table"
    settled = Round.objects.get(pk=round_.pk)
    assert settled.state == "settled"
    bet = settled.bets.get()
    assert bet.status in {"won", "lost", "push"}
    assert balance_of(alice) == Decimal("80.00") + bet.payout
    assert idle_steps(table, clock) == []  # no new round, however long
    assert Round.objects.filter(table=table).count() == 1
    table.refresh_from_db()
    assert (table.close_after, table.closed_by, table.next_action_at) == ("", "operator", None)
    assert table.pk not in due_table_ids(now=clock.now + timedelta(days=1))
    actions = audit_actions(table)
    assert ("table.close_after_round", operator, "Dealer's shift ends") in actions
    assert actions[-1][0] == "table.closed"


def test_closing_at_the_end_of_the_shoe_plays_out_the_shoe_then_reveals_its_seed():
    variant = make_variant("Short shoe", decks=1, cut_min=12, cut_max=13)
    table = fast_table(variant=variant)
    clock = Clock()
    first = drive_to_state(table, clock, "betting")

    assert controls.table_close(table_id=table.pk, when="shoe", reason="Last shoe tonight")["closing"] is True
    drive(table, clock, lambda: Table.objects.get(pk=table.pk).status == "closed")

    rounds = list(Round.objects.filter(table=table).order_by("id"))
    assert len(rounds) > 1
    assert {r.shoe_id for r in rounds} == {first.shoe_id}
    assert all(r.state == "settled" for r in rounds)
    shoe = Shoe.objects.get(pk=first.shoe_id)
    assert engine.ShoeState.from_dict(shoe.state).is_last_round
    assert shoe.finished_at is not None
    assert shoe.revealed_seed == shoe.server_seed
    assert idle_steps(table, clock) == []


def test_a_table_with_no_round_under_way_closes_at_once_and_reopens_with_its_next_round():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "settled")
    assert controls.table_close(table_id=table.pk, when="round", reason="Quiet night") == {
        "closed": True,
        "closing": False,
    }
    assert controls.table_close(table_id=table.pk, when="round", reason="again") == {"closed": False, "closing": False}
    assert Table.objects.get(pk=table.pk).status == "closed"

    assert controls.table_reopen(table_id=table.pk, reason="Busy after all")["reopened"] is True
    table.refresh_from_db()
    assert (table.status, table.closed_by, table.status_reason) == ("open", "", "")
    nxt = drive_to_state(table, clock, "betting")
    assert nxt.number == 2


def test_reopen_calls_off_a_close_that_has_not_happened_yet():
    table = fast_table()
    clock = Clock()
    first = drive_to_state(table, clock, "betting")
    controls.table_close(table_id=table.pk, when="round", reason="Maybe")

    assert controls.table_reopen(table_id=table.pk, reason="No") == {"reopened": False, "close_called_off": True}

    drive(table, clock, lambda: latest_round(table).pk != first.pk)
    assert Table.objects.get(pk=table.pk).status == "open"


def test_only_a_closed_table_can_be_retired_and_a_retired_one_must_come_out_of_retirement_to_reopen():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "settled")
    with pytest.raises(controls.TableNotClosed):
        controls.table_retire(table_id=table.pk, reason="Too soon")
    controls.table_close(table_id=table.pk, when="round", reason="Closing for good")

    assert controls.table_retire(table_id=table.pk, reason="Refurbished") is True
    assert controls.table_retire(table_id=table.pk, reason="again") is False

    table.refresh_from_db()
    assert table.status == "retired"
    assert Round.objects.filter(table=table).count() == 1  # its history stays
    with pytest.raises(controls.TableRetired):
        controls.table_reopen(table_id=table.pk, reason="Oops")
    with pytest.raises(controls.TableRetired):
        controls.table_close(table_id=table.pk, when="round", reason="Oops")
    assert controls.table_pause(table_id=table.pk, reason="Oops")["paused"] is False
    assert idle_steps(table, clock) == []

    assert controls.table_unretire(table_id=table.pk, reason="Needed again") is True
    assert Table.objects.get(pk=table.pk).status == "closed"
    assert controls.table_reopen(table_id=table.pk, reason="Back")["reopened"] is True
    assert drive_to_state(table, clock, "betting").number == 2


def test_players_see_open_and_paused_tables_and_never_a_retired_or_operator_closed_one():
    _open, paused, closed, retired = (fast_table(n) for n in ("Open", "Paused", "Closed", "Retired"))
    controls.table_pause(table_id=paused.pk, reason="Broken scanner, call Bob")
    for table in (closed, retired):
        controls.table_close(table_id=table.pk, when="round", reason="Staff short")
    controls.table_retire(table_id=retired.pk, reason="Gone")

    assert [t["name"] for t in lobby_tiles()] == ["Open", "Paused"]
    assert [t["name"] for t in table_list()] == ["Open", "Paused"]
    assert not table_exists(retired.pk)
    with pytest.raises(NotFound):
        table_detail(retired.pk)
    assert table_detail(closed.pk)["status"] == "closed"  # a player still at it sees it closed

    tile = next(t for t in lobby_tiles() if t["name"] == "Paused")
    assert (tile["status"], tile["status_notice"], tile["status_reason"]) == ("paused", "paused", "Paused")
    snapshot = table_snapshot(paused.pk)
    assert snapshot["table"]["status_reason"] == "Paused"
    assert "Bob" not in str(tile) + str(snapshot) + str(table_list())


def test_a_table_waiting_to_close_tells_players_so_without_the_operators_words():
    table = fast_table()
    drive_to_state(table, Clock(), "betting")
    controls.table_close(table_id=table.pk, when="shoe", reason="Inspector visit at 9")

    [tile] = lobby_tiles()
    assert (tile["status"], tile["status_notice"]) == ("open", "closing_after_shoe")
    assert tile["status_reason"] == "Closing at the end of this shoe"
    assert "Inspector" not in str(table_detail(table.pk))


def test_outside_its_opening_hours_a_table_closes_after_its_round_and_reopens_when_they_begin():
    clock = Clock(datetime(2026, 3, 2, 11, 59, 50, tzinfo=UTC))
    table = fast_table(opens_at=time(9, 0), closes_at=time(12, 0))
    first = drive_to_state(table, clock, "betting")  # opened inside the hours, at 11:59:50
    clock.jump_to(datetime(2026, 3, 2, 12, 0, 5, tzinfo=UTC))

    drive(table, clock, lambda: Table.objects.get(pk=table.pk).status == "closed")

    assert Round.objects.get(pk=first.pk).state == "settled"
    table.refresh_from_db()
    tomorrow_nine = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    assert (table.closed_by, table.next_action_at) == ("hours", tomorrow_nine)
    assert table.pk not in due_table_ids(now=datetime(2026, 3, 3, 8, 59, tzinfo=UTC))
    [tile] = lobby_tiles()  # closed by its hours: still in the lobby, with when it opens
    assert (tile["status"], tile["status_reason"]) == ("closed", "Closed, opens at 09:00 UTC")
    assert tile["hours"] == {"opens_at": "09:00", "closes_at": "12:00"}

    assert table.pk in due_table_ids(now=tomorrow_nine)
    steps = [ticker.table_step(table_id=table.pk, now=tomorrow_nine) for _ in range(2)]
    assert steps == ["reopened", "opened"]
    assert latest_round(table).number == 2
    assert audit_actions(table)[-1][0] == "table.reopened"


def test_a_table_an_operator_closed_stays_closed_when_its_opening_hours_begin():
    clock = Clock(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))
    table = fast_table(opens_at=time(9, 0), closes_at=time(12, 0))
    drive_to_state(table, clock, "settled")
    controls.table_close(table_id=table.pk, when="round", reason="Closed all day")

    next_morning = datetime(2026, 3, 3, 9, 30, tzinfo=UTC)
    assert table.pk not in due_table_ids(now=next_morning)
    assert ticker.table_step(table_id=table.pk, now=next_morning) is None
    assert Table.objects.get(pk=table.pk).status == "closed"


def test_an_opening_window_may_run_past_midnight():
    table = fast_table(opens_at=time(22, 0), closes_at=time(6, 0))
    assert table.within_hours(datetime(2026, 3, 2, 23, 0, tzinfo=UTC))
    assert table.within_hours(datetime(2026, 3, 3, 5, 59, tzinfo=UTC))
    assert not table.within_hours(datetime(2026, 3, 3, 6, 0, tzinfo=UTC))
    assert table.next_opening(datetime(2026, 3, 3, 6, 0, tzinfo=UTC)) == datetime(2026, 3, 3, 22, 0, tzinfo=UTC)


def test_the_table_close_command_closes_retires_and_refuses_with_a_message():
    table = fast_table()
    drive_to_state(table, Clock(), "settled")
    with pytest.raises(CommandError, match="close it first"):
        call_command("table_close", str(table.pk), "--retire", "--reason", "Too soon")
    call_command("table_close", str(table.pk), "--at", "shoe", "--reason", "Last shoe")
    assert Table.objects.get(pk=table.pk).close_after == "shoe"
    call_command("table_close", str(table.pk), "--reopen", "--reason", "No")
    call_command("table_close", str(table.pk), "--reason", "Now")
    call_command("table_close", str(table.pk), "--retire", "--reason", "Done")
    assert Table.objects.get(pk=table.pk).status == "retired"
