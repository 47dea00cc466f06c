"""bets.totals: broadcast after commit, at most a few a second per table, and the last change never lost."""

from __future__ import annotations

import pytest

from tables import events, tasks
from tables.events import table_group
from tests.tables.services.rounds_kit import Clock, GroupListener, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_burst_of_bets_gives_a_few_totals_and_the_tick_flushes_the_last_state():
    table = fast_table(betting_seconds=30)
    players = [make_player(f"p{i}", "100.00") for i in range(5)]
    round_ = drive_to_state(table, Clock(), "betting")
    listener = GroupListener(table_group(table.pk))

    for _ in range(3):
        for player in players:
            place(player, round_.pk, ("player", "2.00"), ("tie", "1.00"))
    during_burst = listener.drain(timeout=0.3)
    tasks.tables_advance()  # the ticker's trailing flush
    after_tick = listener.drain(timeout=0.3)

    totals = [m for m in during_burst + after_tick if m["type"] == "bets.totals"]
    assert 1 <= len([m for m in during_burst if m["type"] == "bets.totals"]) <= 3
    assert len(totals) <= 4
    last = totals[-1]
    assert last["round_id"] == round_.pk
    assert last["table_id"] == table.pk
    assert last["totals"] == {
        "player": {"amount": "30.00", "players": 5},
        "tie": {"amount": "15.00", "players": 5},
    }
    assert last["players"] == 5
    assert events.bets_totals_flush() == 0  # nothing left dirty


def test_a_single_bet_is_announced_at_once_without_waiting_for_a_tick():
    table = fast_table(betting_seconds=30)
    alice = make_player("alice", "50.00")
    round_ = drive_to_state(table, Clock(), "betting")
    listener = GroupListener(table_group(table.pk))

    place(alice, round_.pk, ("banker", "12.50"))

    [message] = listener.drain(timeout=0.5)
    assert message["type"] == "bets.totals"
    assert message["totals"] == {"banker": {"amount": "12.50", "players": 1}}
