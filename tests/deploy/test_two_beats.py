"""Two Celery beats at once are harmless, as deploy/systemd/baccarat-beat.service says (one beat per machine).

Two beats started from the shipped unit (each with its own state directory) tick every 0.25 s at three fast tables,
and one worker with four processes runs every tick and every advance side by side: two sweeps at once look at the
same due tables. The advance each table has pending (tables.tasks) keeps them from queuing it twice, so few advances
find nothing left to do; and whatever the two do at once comes to nothing twice: each table event is sent once,
each round's steps come once and in order, round numbers have no gap, and every bet is paid once.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
import uuid
from collections import Counter, defaultdict
from typing import Any

import pytest
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers
from django.conf import settings
from django.db.models import Count

from baccarat_site.errors import DomainError
from tables.events import table_group
from tables.models import Bet, Round
from tables.selectors.bets import casino_reconciliation
from tests.deploy.topology import Processes, render_env_file, unit_process
from tests.processes import process_env
from tests.tables.services.rounds_kit import fast_table, make_player, paid_twice, place

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

TABLES = 3
SETTLED_ROUNDS = 3  # at each table, with both beats ticking
PLAY_SECONDS_AT_MOST = 120
STEPS = {"round.opened", "round.closed", "card.dealt", "round.result", "round.cancelled", "table.paused"}


def test_two_beats_ticking_at_once_never_make_a_round_step_happen_twice(tmp_path):
    tables = [
        fast_table(f"Two beats {n}", betting_seconds=2, deal_interval_ms=50, result_seconds=1) for n in range(TABLES)
    ]
    player = make_player("punter", "5000.00")
    listener = TableEvents([table.pk for table in tables])

    with Processes(tmp_path, f"test-{uuid.uuid4().hex[:12]}") as procs:
        base = process_env(CELERY_QUEUE=procs.queue, TICK_SECONDS="0.25", LOG_LEVEL="INFO")
        env_file = render_env_file(
            tmp_path,
            DATABASE_URL=base["DATABASE_URL"],
            REDIS_URL=base["REDIS_URL"],
            SECRET_KEY=settings.SECRET_KEY,
            ALLOWED_HOSTS="127.0.0.1",
            CSRF_TRUSTED_ORIGINS="",
            STATIC_ROOT=str(tmp_path / "static"),
            BIND_ADDRESS="127.0.0.1",
            WORKER_CONCURRENCY="4",
        )
        procs.start(
            "worker",
            *unit_process("baccarat-worker@.service", instance=procs.queue, env_file=env_file, base_env=base),
        )
        for name in ("beat_a", "beat_b"):
            state = tmp_path / f"state-{name}"
            (state / "baccarat").mkdir(parents=True)
            procs.start(name, *unit_process("baccarat-beat.service", state_dir=state, env_file=env_file, base_env=base))
        wait_for_logs(procs, {"worker": "ready.", "beat_a": "Sending due task", "beat_b": "Sending due task"})

        bet_on: dict[int, str] = {}
        at_start = {name: len(procs.log(name)) for name in ("beat_a", "beat_b")}
        deadline = time.monotonic() + PLAY_SECONDS_AT_MOST
        while min(settled_per_table(tables)) < SETTLED_ROUNDS:  # however slow the machine
            assert time.monotonic() < deadline, (settled_per_table(tables), procs.logs_text())
            for round_ in Round.objects.filter(table__in=tables, state=Round.State.BETTING).exclude(pk__in=bet_on):
                try:
                    body = place(player, round_.pk, ("banker", "10.00"))
                except DomainError as exc:  # closed meanwhile: no bet on this one
                    bet_on[round_.pk] = f"refused: {exc}"
                    continue
                bet_on[round_.pk] = str(body["bets"][0]["id"])
            time.sleep(0.1)
        during = {name: procs.log(name)[at_start[name] :].count("Sending due task") for name in at_start}
        time.sleep(3)  # the rounds under way finish
        for name in ("beat_a", "beat_b"):
            procs.kill(name)
        time.sleep(1)
        logs = {name: procs.log(name) for name in procs.logs}

    # Both beats ticked all along (4 a second each, fewer on a busy machine).
    assert min(during.values()) >= 4 * SETTLED_ROUNDS, during
    # Both beats' sweeps ran, side by side on the worker's processes.
    sweeps = re.findall(r"tables_sweep\[[^\]]+\] succeeded", logs["worker"])
    assert len(sweeps) >= sum(during.values()) // 2, (len(sweeps), during)
    # Advances that found nothing left to do (a duplicate "look now"): fewer than half, since a table's pending
    # advance is not queued again by the other beat's sweep; one comes when a run is later than the 2 s grace,
    # which a loaded CI machine makes common (24 of 50 in one fresh-clone run, 2 + 10% on a quiet one).
    advances = re.findall(r"table_advance\[[^\]]+\] succeeded in [0-9.e-]+s: (\[.*?\])", logs["worker"])
    assert advances.count("[]") <= len(advances) // 2, (advances.count("[]"), len(advances), advances[-20:])

    events = listener.stop()
    for table in tables:
        sent = [event for event in events if event.get("table_id") == table.pk]
        seqs = [e["seq"] for e in sent if "seq" in e]
        assert len(seqs) == len(set(seqs)), "an event sent twice"
        steps: dict[int, list[str]] = defaultdict(list)
        for event in sorted((e for e in sent if e["type"] in STEPS), key=lambda e: e["seq"]):
            name = event["type"] if event["type"] != "card.dealt" else f"card {event['position']} {event['card']}"
            steps[event["round_id"]].append(name)
        rounds = list(Round.objects.filter(table=table).order_by("pk"))
        for round_ in rounds:
            expected = [
                "round.opened",
                "round.closed",
                *(f"card {n} {c['card']}" for n, c in enumerate(round_.cards, 1)),
                "round.result",
            ]
            seen = steps[round_.pk]
            if round_.state == Round.State.SETTLED:
                assert seen == expected, (round_.pk, seen)
            else:  # the last one, stopped under way: what happened so far, once
                assert seen == expected[: len(seen)], (round_.pk, seen)
        numbers = [r.number for r in rounds if r.shoe_id == rounds[-1].shoe_id]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers

    confirmed = [int(bet_id) for bet_id in bet_on.values() if not bet_id.startswith("refused")]
    assert len(confirmed) >= TABLES, bet_on
    statuses = Counter(
        Bet.objects.filter(pk__in=confirmed, round__state=Round.State.SETTLED).values_list("outcome__status", flat=True)
    )
    assert set(statuses) <= {"won", "lost", "push"}, statuses
    assert paid_twice() == []
    assert casino_reconciliation().ok


class TableEvents:
    """Every message sent to the tables' groups, received without a pause on a thread of its own, as a consumer
    does (a receive cancelled by a timeout can drop what channels_redis had already buffered), from the moment it
    is made (the layer expires a message nobody received in 60 s)."""

    def __init__(self, table_ids: list[int]) -> None:
        self.messages: list[dict[str, Any]] = []
        self.layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[None] | None = None
        ready = threading.Event()

        async def listen() -> None:
            channel = await self.layer.new_channel()
            for table_id in table_ids:
                await self.layer.group_add(table_group(table_id), channel)
            ready.set()
            try:
                while True:
                    self.messages.append(await self.layer.receive(channel))
            finally:
                await self.layer.close_pools()

        def run() -> None:
            self.task = self.loop.create_task(listen())
            with contextlib.suppress(asyncio.CancelledError):
                self.loop.run_until_complete(self.task)
            self.loop.close()

        self.thread = threading.Thread(target=run, name="table-events", daemon=True)
        self.thread.start()
        assert ready.wait(10), "not listening"

    def stop(self) -> list[dict[str, Any]]:
        time.sleep(1)  # the last sends arrive
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(10)
        return list(self.messages)


def settled_per_table(tables: list) -> list[int]:
    settled = Round.objects.filter(table__in=tables, state=Round.State.SETTLED)
    counts = dict(settled.values("table").annotate(n=Count("id")).values_list("table", "n"))
    return [counts.get(table.pk, 0) for table in tables]


def wait_for_logs(procs: Processes, lines: dict[str, str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not all(line in procs.log(name) for name, line in lines.items()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not started: {lines}\n{procs.logs_text()}")
        time.sleep(0.1)
