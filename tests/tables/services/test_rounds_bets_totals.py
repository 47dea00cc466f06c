"""bets.totals: broadcast after commit, at most a few a second per table, and the last change never lost."""

from __future__ import annotations

import pytest

from baccarat_site.redis_client import redis_client
from tables import events, tasks
from tables.events import table_group
from tests.tables.services.rounds_kit import Clock, GroupListener, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def totals_window(monkeypatch):
    """A throttle window longer than any test: which bets fall inside it no longer depends on how fast this
    machine places them. The window ends when the test says so (``end``), never by the wall clock."""
    monkeypatch.setattr(events, "TOTALS_INTERVAL_MS", 600_000)

    def end(round_id: int) -> None:
        assert redis_client().delete(events._key(f"totals-throttle:{round_id}")) == 1, "no window was open"

    return end


def test_the_window_lets_a_table_see_a_few_totals_a_second():
    assert 100 <= events.TOTALS_INTERVAL_MS <= 500


def test_a_burst_of_bets_gives_one_totals_at_once_and_the_tick_flushes_the_last_state(totals_window):
    table = fast_table(betting_seconds=30)
    players = [make_player(f"p{i}", "100.00") for i in range(5)]
    round_ = drive_to_state(table, Clock(), "betting")
    listener = GroupListener(table_group(table.pk))

    for _ in range(3):
        for player in players:
            place(player, round_.pk, ("player", "2.00"), ("tie", "1.00"))
    during_burst = [m for m in listener.drain(timeout=0.3) if m["type"] == "bets.totals"]
    tasks.tables_sweep()  # the ticker's trailing flush
    after_tick = [m for m in listener.drain(timeout=0.3) if m["type"] == "bets.totals"]

    # The first bet opened the window and was announced at once; the other 14 only marked the round dirty.
    assert [m["totals"] for m in during_burst] == [
        {"player": {"amount": "2.00", "players": 1}, "tie": {"amount": "1.00", "players": 1}}
    ]
    assert len(after_tick) == 1
    last = after_tick[0]
    assert last["round_id"] == round_.pk
    assert last["table_id"] == table.pk
    assert last["totals"] == {
        "player": {"amount": "30.00", "players": 5},
        "tie": {"amount": "15.00", "players": 5},
    }
    assert last["players"] == 5
    assert events.bets_totals_flush() == 0  # nothing left dirty
    window_ms = redis_client().pttl(events._key(f"totals-throttle:{round_.pk}"))
    assert events.TOTALS_INTERVAL_MS - 60_000 < window_ms <= events.TOTALS_INTERVAL_MS  # the window is the interval

    # Once the window is over, the next change is announced at once again (the leading edge).
    totals_window(round_.pk)
    place(players[0], round_.pk, ("banker", "5.00"))
    [again] = [m for m in listener.drain(timeout=0.3) if m["type"] == "bets.totals"]
    assert again["totals"]["banker"] == {"amount": "5.00", "players": 1}
    assert events.bets_totals_flush() == 0


def test_a_single_bet_is_announced_at_once_without_waiting_for_a_tick():
    table = fast_table(betting_seconds=30)
    alice = make_player("alice", "50.00")
    round_ = drive_to_state(table, Clock(), "betting")
    listener = GroupListener(table_group(table.pk))

    place(alice, round_.pk, ("banker", "12.50"))

    [message] = listener.drain(timeout=0.5)
    assert message["type"] == "bets.totals"
    assert message["totals"] == {"banker": {"amount": "12.50", "players": 1}}
