"""The Celery side: beat ticks, per-table advances chained to each deadline, duplicates harmless."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tables import engine, tasks
from tables.models import Round, Shoe, Table
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table
from tests.tables.tasks.stack import Stack, wait_for


@pytest.fixture
def queued(monkeypatch):
    """What table_advance would queue (no broker traffic from in-process tests)."""
    calls: list[tuple[tuple, dict]] = []
    monkeypatch.setattr(tasks.table_advance, "apply_async", lambda *a, **kw: calls.append((a, kw)))
    return calls


@pytest.mark.django_db
def test_the_beat_tick_queues_an_advance_only_for_due_and_never_started_tables(queued):
    idle = fast_table("Idle")
    waiting = fast_table("Waiting", betting_seconds=60)  # a window that outlasts a busy machine's test
    drive_to_state(waiting, Clock(), "betting")
    paused = fast_table("Paused", status=Table.Status.PAUSED)
    late = fast_table("Late")
    Table.objects.filter(pk=late.pk).update(next_action_at=timezone.now() - timedelta(seconds=3))

    assert tasks.tables_sweep() == 2

    assert sorted(call[1]["args"][0] for call in queued) == sorted([idle.pk, late.pk])
    assert paused.pk not in [call[1]["args"][0] for call in queued]


@pytest.mark.django_db
def test_table_advance_chains_to_the_next_deadline_and_a_repeat_does_nothing(queued):
    table = fast_table(betting_seconds=5)

    assert tasks.table_advance(table.pk) == ["shuffled", "opened"]
    round_ = Round.objects.get(table=table)
    [(_, options)] = queued
    assert options["args"] == [table.pk]
    assert options["eta"] == round_.closes_at

    assert tasks.table_advance(table.pk) == []
    assert len(queued) == 1  # nothing done, nothing chained: duplicates die out
    assert Round.objects.get(table=table).state == "betting"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(120)
def test_an_open_table_plays_round_after_round_by_itself_even_with_two_beats_and_two_workers(tmp_path):
    table = fast_table("Autopilot", betting_seconds=1, deal_interval_ms=50, result_seconds=0)

    with Stack(tmp_path, tick=0.2) as stack:
        stack.worker("worker1")
        stack.worker("worker2")
        stack.beat("beat1")
        stack.beat("beat2")  # a duplicate beat must be harmless
        wait_for(
            lambda: Round.objects.filter(table=table, state="settled").count() >= 4,
            timeout=60,
            stack=stack,
            what="four settled rounds",
        )
        Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
        wait_for(
            lambda: not Round.objects.filter(table=table).exclude(state="settled").exists(),
            timeout=20,
            stack=stack,
            what="the last round to finish",
        )

    played = list(Round.objects.filter(table=table).order_by("number"))
    assert [r.number for r in played] == list(range(1, len(played) + 1))
    for round_ in played:
        assert round_.state == "settled"
        assert [c["position"] for c in round_.cards] == list(range(1, len(round_.cards) + 1))
        assert 4 <= len(round_.cards) <= 6
        assert round_.closed_at >= round_.closes_at
        assert round_.closed_at - round_.closes_at < timedelta(seconds=1)
    # no card dealt twice or skipped: the shoe moved by exactly the cards on the rounds
    shoe = Shoe.objects.get(table=table)
    state = engine.ShoeState.from_dict(shoe.state)
    assert state.position == 1 + shoe.burn_count + sum(len(r.cards) for r in played)
    order = [str(c) for c in state.cards]
    assert [c["card"] for r in played for c in r.cards] == order[1 + shoe.burn_count : state.position]


@pytest.mark.django_db
def test_the_sweep_queues_no_second_advance_for_a_table_whose_own_is_due_and_pending(queued, monkeypatch):
    table = fast_table("Chained", betting_seconds=5)
    tasks.table_advance(table.pk)  # opens the window and queues its close for closes_at
    closes_at = Round.objects.get(table=table).closes_at
    later = closes_at + timedelta(milliseconds=300)  # the close is due, its advance not finished yet
    monkeypatch.setattr(tasks.timezone, "now", lambda: later)

    assert tasks.tables_sweep() == 0  # its follow-up is pending (late, but within the grace)
    assert len(queued) == 1


@pytest.mark.django_db
def test_a_table_due_before_its_pending_advance_is_queued_at_once(queued):
    """A dealer's scan, a resume or a cancel sets the deadline to now: the advance pending for the old deadline would
    wait for it, so the sweep queues one now (the live dealer's cards and the supervisor's calls wait on this)."""
    table = fast_table("Moved", betting_seconds=60)
    tasks.table_advance(table.pk)  # its close is pending for a minute from now
    Table.objects.filter(pk=table.pk).update(next_action_at=timezone.now())

    assert tasks.tables_sweep() == 1
    assert tasks.tables_sweep() == 0  # and once: that one is pending now


@pytest.mark.django_db
def test_the_sweep_queues_an_advance_once_until_it_has_run(queued):
    late = fast_table("Late")
    Table.objects.filter(pk=late.pk).update(next_action_at=timezone.now() - timedelta(seconds=3))

    assert tasks.tables_sweep() == 1
    assert tasks.tables_sweep() == 0  # queued, not yet run: the next tick adds none
    assert tasks.table_advance(late.pk) == ["shuffled", "opened"]
    assert [call[1]["args"] for call in queued] == [[late.pk], [late.pk]]  # the sweep's, then its follow-up


@pytest.mark.django_db
def test_an_advance_lost_with_its_worker_is_queued_again_after_the_grace(queued, monkeypatch):
    monkeypatch.setattr(tasks, "PENDING_GRACE_SECONDS", 0.2)
    late = fast_table("Lost")
    Table.objects.filter(pk=late.pk).update(next_action_at=timezone.now() - timedelta(seconds=3))
    assert tasks.tables_sweep() == 1  # ... and that advance never runs

    wait_for(lambda: tasks.tables_sweep() == 1, timeout=5, what="the sweep to queue the table again")


@pytest.mark.django_db
def test_an_advance_that_found_nothing_due_leaves_none_pending(queued):
    table = fast_table("Nothing due", betting_seconds=60)
    drive_to_state(table, Clock(), "betting")
    assert tasks.table_advance(table.pk) == []
    Table.objects.filter(pk=table.pk).update(next_action_at=timezone.now() - timedelta(milliseconds=10))

    assert tasks.tables_sweep() == 1  # the deadline moved without a chained advance: the sweep takes it at once


@pytest.mark.django_db
def test_without_redis_the_sweep_queues_every_due_table(queued, monkeypatch):
    def unreachable():
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(tasks, "redis_client", unreachable)
    late = fast_table("Late")
    Table.objects.filter(pk=late.pk).update(next_action_at=timezone.now() - timedelta(seconds=3))

    assert tasks.tables_sweep() == 1
    assert tasks.tables_sweep() == 1  # a duplicate is harmless; a missing advance would stall the table
