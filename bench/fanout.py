"""Fan-out benchmark of the live table, next to a plain ``websockets`` baseline measured in the same run.

    .venv/bin/python bench/fanout.py [--clients 2000] [--instances 2] [--rounds 6] [--client-procs 4] [--heartbeat 0]

What it does (everything on loopback; everything it starts, it stops):

1. Creates a scratch database ``baccarat_bench_fanout`` (the embedded PostgreSQL when DATABASE_URL is
   unset), migrates it, and makes one bench table plus ``--quiet-tables`` tables nobody watches (more
   samples of the window-close delay). All start paused.
2. Starts ``--instances`` daphne processes, one Celery worker and one Celery beat (the production tick,
   TICK_SECONDS, default 0.5 s), its own channel-layer prefix and Celery queue.
3. Opens ``--clients`` WebSocket clients (split evenly over the daphne processes, run by
   ``--client-procs`` client processes) on the bench table; measures each daphne's RSS before and after:
   memory per idle connection. With ``--heartbeat S`` every client sends the page's ``{"type": "ping"}`` every
   S seconds (static/casino/table/live.js sends one every 5 s), spread evenly, from connecting to the end.
4. Resumes the tables and lets ``--rounds`` rounds play by themselves (the first is warm-up). For every
   round and client: the delay from the round's result being committed (the ``server_time`` the event is
   stamped with as it leaves the worker, after the commit) to the client receiving ``round.result``; also,
   for context, from ``result_at`` (stamped at the start of the reveal step, before its work and commit).
   Every client must get every ``round.result`` and ``card.dealt``: the capacity check (channels_redis
   drops silently when a channel is over capacity).
5. Window-close delay: ``closed_at − closes_at`` of every round of every bench table during the load.
6. Baseline: ``--instances`` plain ``websockets`` servers, the same clients, the same round.result frame
   broadcast (``websockets.broadcast``) on a trigger that crosses Redis pub/sub like a channel-layer
   message does, answering the same heartbeats with the same ``pong``; delay from the trigger's publication to
   each client's receipt.
7. Prints p50/p99 side by side, the ratio, memory per connection, the close delays, the client processes' CPU
   (the load generator must not be what is measured); drops the database.

``bench/sockets_per_daphne.py`` runs the same machinery with one daphne and 10,000 sockets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import redis
import redis.asyncio as aioredis
from websockets import broadcast
from websockets.asyncio.server import serve

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baccarat_site import daphne_server  # noqa: E402

# Django, and the project's modules that need it, are imported inside the functions that use them: the
# scratch database's settings exist only once django_setup() has run.
from bench._sockets import RawClient, open_client  # noqa: E402
from bench.results import record  # noqa: E402
from bench.scratch import django_setup, drop_database, recreate_database, service_urls, stop_groups  # noqa: E402

BENCH_DB = "baccarat_bench_fanout"
LOOPBACK = "127.0.0.1"
PING = json.dumps({"type": "ping"}).encode()
# Handshakes the clients have under way at once, over all their processes (a restarted daphne's browsers come
# back spread over their backoff, not all in the same instant).
HANDSHAKES_IN_FLIGHT = 128


# ── statistics ──────────────────────────────────────────────────────────────


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def summary(values: list[float]) -> str:
    if not values:
        return "no samples"
    return (
        f"p50 {percentile(values, 50):7.1f} ms   p99 {percentile(values, 99):7.1f} ms   "
        f"max {max(values):7.1f} ms   (n={len(values)})"
    )


# ── clients (separate processes) ────────────────────────────────────────────


def client_process(conn: Any, index: int) -> None:
    """Holds WebSocket clients; obeys ("connect", urls, n, heartbeat, handshakes in flight), ("collect",), ("close",)
    from the parent."""
    asyncio.run(_client_main(conn, index))


class RoundWatcher(RawClient):
    """A watcher of one table: counts the frames by type and times every ``round.result`` (peeking at the frame's
    "type" in place, never parsing the JSON)."""

    def __init__(
        self,
        host: str,
        path: str,
        received: list[tuple[int, float]],
        counts: dict[str, int],
        stamps: dict[int, float],
    ) -> None:
        super().__init__(host, path)
        self.received, self.counts, self.stamps = received, counts, stamps

    def text_frame(self, now: float, buf: bytearray, body: int, length: int) -> None:
        self.counts["frames"] = self.counts.get("frames", 0) + 1
        if buf.find(b'"type": "pong"', body, body + 20) >= 0:
            self.counts["pong"] = self.counts.get("pong", 0) + 1
        elif buf.find(b'"type": "round.result"', body, body + 40) >= 0:
            at = buf.find(b'"round_id": ', body, body + length) + 12
            stop = at
            while buf[stop] in b"-0123456789":
                stop += 1
            round_id = int(buf[at:stop])
            self.received.append((round_id, now))
            if round_id not in self.stamps:  # when the server sent it, after the commit
                stamp = buf.find(b'"server_time": "', body, body + length) + 16
                if stamp >= 16:
                    sent = bytes(buf[stamp : stamp + 24]).decode().replace("Z", "+00:00")
                    self.stamps[round_id] = datetime.fromisoformat(sent).timestamp()
            self.counts["round.result"] = self.counts.get("round.result", 0) + 1
        elif buf.find(b'"type": "card.dealt"', body, body + 40) >= 0:
            self.counts["card.dealt"] = self.counts.get("card.dealt", 0) + 1


async def _client_main(conn: Any, index: int) -> None:
    loop = asyncio.get_running_loop()
    clients: list[RoundWatcher] = []
    received: list[tuple[int, float]] = []  # (round id, receipt time) of round.result frames
    stamps: dict[int, float] = {}  # round id → the frame's server_time
    counts: dict[str, int] = {}
    beating: asyncio.Task | None = None

    async def heartbeat(every: float) -> None:
        """The page's ping (static/casino/table/live.js), each client every ``every`` seconds, spread evenly over
        the period: one loop for all of this process's clients, not a timer each."""
        tick, turn = 0.1, 0
        slots = max(1, round(every / tick))
        while True:
            await asyncio.sleep(tick)
            for client in clients[turn % slots :: slots]:
                if client.transport is not None and not client.transport.is_closing():
                    client.write(PING)
            turn += 1

    async def open_one(url: str, gate: asyncio.Semaphore) -> None:
        parts = urlsplit(url)
        async with gate:
            client = await open_client(
                lambda: RoundWatcher(parts.netloc, parts.path or "/", received, counts, stamps),
                parts.hostname or LOOPBACK,
                parts.port or 80,
                timeout=120,
            )
            clients.append(client)

    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command[0] == "connect":
            _, urls, count, every, in_flight = command
            gate = asyncio.Semaphore(in_flight)
            if every and beating is None:
                beating = asyncio.ensure_future(heartbeat(every))
            await asyncio.gather(*(open_one(urls[i % len(urls)], gate) for i in range(count)))
            conn.send(("connected", len(clients)))
        elif command[0] == "collect":
            # let frames still in flight arrive: wait until nothing new came for 1.5 s (at most 30 s)
            quiet_since, seen, deadline = time.monotonic(), -1, time.monotonic() + 30
            while time.monotonic() - quiet_since < 1.5 and time.monotonic() < deadline:
                total = len(received) + sum(counts.values()) - 2 * counts.get("pong", 0)  # heartbeats go on
                if total != seen:
                    seen, quiet_since = total, time.monotonic()
                await asyncio.sleep(0.1)
            still_open = sum(1 for c in clients if c.transport is not None and not c.transport.is_closing())
            conn.send(("collected", received[:], dict(counts), still_open, dict(stamps)))
            received.clear()
            stamps.clear()
            counts.clear()
            if beating is not None:
                beating.cancel()
                beating = None
            for client in clients:
                client.close()
            clients.clear()
            await asyncio.sleep(0.5)
        elif command[0] == "close":
            conn.send(("closed",))
            return


class Clients:
    def __init__(self, procs: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipes = []
        self.procs = []
        for index in range(procs):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=client_process, args=(child, index), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)

    def connect(self, urls_per_proc: list[list[str]], total: int, heartbeat: float = 0) -> int:
        """Open ``total`` clients over the processes; with ``heartbeat``, each pings every that many seconds."""
        share = [total // len(self.pipes) + (1 if i < total % len(self.pipes) else 0) for i in range(len(self.pipes))]
        in_flight = max(4, HANDSHAKES_IN_FLIGHT // len(self.pipes))  # per process: the same total however many
        for pipe, urls, count in zip(self.pipes, urls_per_proc, share, strict=True):
            pipe.send(("connect", urls, count, heartbeat, in_flight))
        return sum(pipe.recv()[1] for pipe in self.pipes)

    def collect(self) -> tuple[list[tuple[int, float]], dict[str, int], int, dict[int, float]]:
        for pipe in self.pipes:
            pipe.send(("collect",))
        received: list[tuple[int, float]] = []
        counts: dict[str, int] = {}
        sockets = 0
        stamps: dict[int, float] = {}
        for pipe in self.pipes:
            _, got, got_counts, open_sockets, got_stamps = pipe.recv()
            received += got
            stamps.update(got_stamps)
            sockets += open_sockets
            for key, value in got_counts.items():
                counts[key] = counts.get(key, 0) + value
        return received, counts, sockets, stamps

    def cpu_seconds(self) -> float:
        """CPU time the client processes have used so far."""
        return sum(cpu_seconds(proc.pid) for proc in self.procs if proc.pid is not None)

    def close(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(Exception):
                pipe.send(("close",))
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()


# ── baseline server (a separate process: ``--baseline-server PORT``) ───────


async def baseline_server(port: int, redis_url: str, channel: str) -> None:
    """Broadcasts what arrives on ``channel`` to every client; answers the page's ping as the table socket does."""
    clients: set[Any] = set()

    async def handler(ws: Any) -> None:
        clients.add(ws)
        try:
            async for text in ws:
                with contextlib.suppress(ValueError, AttributeError):
                    if json.loads(text).get("type") == "ping":
                        await ws.send(json.dumps({"type": "pong", "server_time": server_time()}))
        finally:
            clients.discard(ws)

    async with serve(handler, LOOPBACK, port, compression=None, ping_interval=None, max_size=2**22):
        client = aioredis.from_url(redis_url)
        pubsub = client.pubsub()
        await pubsub.subscribe(channel)
        async for message in pubsub.listen():
            if message["type"] == "message":
                broadcast(clients, message["data"].decode())


def server_time() -> str:
    """As baccarat_site.clock.server_time (which needs Django): now, ISO 8601 in UTC with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ── servers, database ───────────────────────────────────────────────────────


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"process on {port} exited:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), timeout=0.5):
            return
        time.sleep(0.2)
    raise SystemExit(f"nothing listens on {port}")


class Processes:
    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs = env, logs
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, command: list[str]) -> subprocess.Popen:
        log = (self.logs / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.procs[name] = proc
        return proc

    def stop(self, *names: str) -> None:
        stop_groups([self.procs.pop(name) for name in names or list(self.procs) if name in self.procs])

    def log_text(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


# ── the run ─────────────────────────────────────────────────────────────────


def make_tables(quiet: int) -> tuple[int, list[int]]:
    from tables.models import Table
    from tables.services.variants import variant_create

    variant = variant_create(name="Bench")
    main = Table.objects.create(
        name="Fan-out", variant=variant, status="paused", betting_seconds=3, deal_interval_ms=400, result_seconds=2
    )
    others = [
        Table.objects.create(
            name=f"Quiet {i}",
            variant=variant,
            status="paused",
            betting_seconds=1,
            deal_interval_ms=300,
            result_seconds=1,
        ).pk
        for i in range(quiet)
    ]
    return main.pk, others


@dataclass
class Measures:
    """What one run measured (``run``); each script records the ones its goals are about."""

    clients: int
    instances: int
    p99: float  # round.result, from commit to each socket, ms
    base_p99: float  # the websockets baseline's, ms
    closes_p99: float  # window-close delay, ms
    daphne_kib: float  # memory per idle socket, mean over the daphne processes
    base_kib: float  # the same for the baseline servers
    delivered: bool  # every socket got every round.result


def run(args: argparse.Namespace) -> Measures:
    db_url, redis_url = service_urls()
    bench_url = recreate_database(db_url, args.database)
    prefix = f"benchfan{os.getpid()}"
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    django_setup(bench_url, redis_url, CHANNELS_PREFIX=prefix)

    from django.db import connection
    from django.utils import timezone

    from tables.models import Round
    from tables.services.controls import table_pause, table_resume

    table_id, quiet = make_tables(args.quiet_tables)
    env = {
        **os.environ,
        "DATABASE_URL": bench_url,
        "REDIS_URL": redis_url,
        "CHANNELS_PREFIX": prefix,
        "CELERY_QUEUE": queue,
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        # Thousands of sockets from this one address: the per-address cap (tables.socketcap) is off here.
        "WS_MAX_SOCKETS_PER_ADDRESS": "0",
        # As deploy/systemd/baccarat-daphne@.service runs daphne: a connection pool, not a connection per query.
        "DB_POOL": "1",
    }
    logs = Path(tempfile.mkdtemp(prefix="fanout-"))
    procs = Processes(env, logs)
    clients: Clients | None = None
    bin_dir = Path(sys.executable).parent
    try:
        ports = []
        for i in range(args.instances):
            port = free_port()
            ports.append(port)
            proc = procs.start(
                f"daphne{i}",
                daphne_server.command(LOOPBACK, port),
            )
            wait_listening(port, proc, logs / f"daphne{i}.log")
        celery = str(bin_dir / "celery")
        procs.start(
            "worker",
            [
                celery,
                "-A",
                "baccarat_site",
                "worker",
                "-l",
                "info",
                "--concurrency",
                str(args.worker_concurrency),
                "-n",
                f"bench-{queue}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
        )
        procs.start("beat", [celery, "-A", "baccarat_site", "beat", "-l", "info", "-s", str(logs / "beat-schedule")])

        clients = Clients(args.client_procs)
        urls = [f"ws://{LOOPBACK}:{port}/ws/tables/{table_id}/" for port in ports]
        idle_rss = {i: rss_mb(procs.procs[f"daphne{i}"].pid) for i in range(args.instances)}
        t0 = time.monotonic()
        connected = clients.connect([urls] * args.client_procs, args.clients, args.heartbeat)
        print(f"{connected} clients connected to {args.instances} daphne processes in {time.monotonic() - t0:.1f} s")
        time.sleep(max(3.0, 2 * args.heartbeat))  # idle, heartbeats going: each socket has pinged twice
        loaded_rss = {i: rss_mb(procs.procs[f"daphne{i}"].pid) for i in range(args.instances)}
        per_instance = args.clients / args.instances
        daphne_kb = [(loaded_rss[i] - idle_rss[i]) * 1024 / per_instance for i in range(args.instances)]

        # play
        cpu_before = sum(cpu_seconds(procs.procs[f"daphne{i}"].pid) for i in range(args.instances))
        clients_cpu_before, wall_before = clients.cpu_seconds(), time.monotonic()
        load_started = timezone.now()
        for tid in [table_id, *quiet]:
            table_resume(table_id=tid, reason="bench")
        deadline = time.monotonic() + args.rounds * 20 + 30
        while Round.objects.filter(table_id=table_id, state="settled").count() < args.rounds:
            if time.monotonic() > deadline:
                raise SystemExit("the bench table stopped playing:\n" + procs.log_text("worker")[-3000:])
            time.sleep(0.5)
        for tid in [table_id, *quiet]:
            table_pause(table_id=tid, reason="bench over")
        load_ended = timezone.now()
        clients_busy = (clients.cpu_seconds() - clients_cpu_before) / (time.monotonic() - wall_before)
        received, counts, open_sockets, committed = clients.collect()
        cpu_after = sum(cpu_seconds(procs.procs[f"daphne{i}"].pid) for i in range(args.instances))
        daphne_us_per_frame = (cpu_after - cpu_before) * 1e6 / max(1, counts.get("frames", 0))

        played = list(Round.objects.filter(table_id=table_id, state="settled").order_by("id"))
        result_at = {r.pk: r.result_at.timestamp() for r in played}
        measured = {r.pk for r in played[1:]}  # the first round warms up
        # From commit: the frame's server_time, stamped as the event leaves the worker after its commit.
        delays = [(t - committed[rid]) * 1000 for rid, t in received if rid in measured]
        firsts = [
            min((t - committed[rid]) * 1000 for rid, t in received if rid == one)
            for one in measured
            if one in dict(received)
        ]
        # For context, from result_at: the start of the reveal step, before its work and its commit.
        from_result_at = [(t - result_at[rid]) * 1000 for rid, t in received if rid in measured]
        expected_results = len(played) * args.clients
        expected_cards = sum(len(r.cards) for r in played) * args.clients
        sample_frame = json.dumps(
            {"type": "round.result", **{k: v for k, v in _result_frame(played[-1]).items() if k != "type"}}
        )
        closes = [
            (r.closed_at - r.closes_at).total_seconds() * 1000
            for r in Round.objects.filter(
                table_id__in=[table_id, *quiet], closed_at__gte=load_started, closed_at__lte=load_ended
            )
        ]
        dropped_note = [
            line for name in procs.procs for line in procs.log_text(name).splitlines() if "over capacity" in line
        ]
        procs.stop()
        connection.close()

        # baseline
        channel = f"{prefix}:baseline"
        base_ports = [free_port() for _ in range(args.instances)]
        for i, port in enumerate(base_ports):
            proc = procs.start(
                f"baseline{i}",
                [sys.executable, str(Path(__file__).resolve()), "--baseline-server", str(port), "--channel", channel],
            )
            wait_listening(port, proc, logs / f"baseline{i}.log")
        base_idle = {i: rss_mb(procs.procs[f"baseline{i}"].pid) for i in range(args.instances)}
        base_urls = [f"ws://{LOOPBACK}:{port}/" for port in base_ports]
        clients.connect([base_urls] * args.client_procs, args.clients, args.heartbeat)
        time.sleep(max(3.0, 2 * args.heartbeat))
        base_loaded = {i: rss_mb(procs.procs[f"baseline{i}"].pid) for i in range(args.instances)}
        base_kb = [(base_loaded[i] - base_idle[i]) * 1024 / per_instance for i in range(args.instances)]

        publisher = redis.Redis.from_url(redis_url)
        base_cpu_before = sum(cpu_seconds(procs.procs[f"baseline{i}"].pid) for i in range(args.instances))
        base_clients_cpu, base_wall = clients.cpu_seconds(), time.monotonic()
        sent_at: dict[int, float] = {}
        for i in range(1, args.rounds + 1):
            frame = json.loads(sample_frame)
            frame["round_id"] = -i
            text = json.dumps(frame)
            sent_at[-i] = time.time()
            publisher.publish(channel, text)
            time.sleep(2.0)
        base_clients_busy = (clients.cpu_seconds() - base_clients_cpu) / (time.monotonic() - base_wall)
        base_received, base_counts, _, _ = clients.collect()
        base_cpu_after = sum(cpu_seconds(procs.procs[f"baseline{i}"].pid) for i in range(args.instances))
        base_us_per_frame = (base_cpu_after - base_cpu_before) * 1e6 / max(1, base_counts.get("frames", 0))
        base_delays = [(t - sent_at[rid]) * 1000 for rid, t in base_received if rid in sent_at and rid != -1]
        base_firsts = [
            min((t - sent_at[rid]) * 1000 for rid, t in base_received if rid == one)
            for one in sent_at
            if one != -1 and one in dict(base_received)
        ]
        procs.stop()
    finally:
        if clients is not None:
            clients.close()
        procs.stop()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        drop_database(db_url, args.database)

    p99, base_p99 = percentile(delays, 99), percentile(base_delays, 99)
    print()
    print(f"fan-out of round.result to {args.clients} clients over {args.instances} processes, {len(measured)} rounds")
    print(f"  daphne + channels_redis : {summary(delays)}   (from commit: the frame's server_time)")
    print(f"  websockets baseline     : {summary(base_delays)}   (from the trigger's publication)")
    print(f"  ratio p99               : {p99 / base_p99:.2f}× the baseline")
    print(
        f"  first client, median    : {statistics.median(firsts):.1f} ms (daphne) vs "
        f"{statistics.median(base_firsts):.1f} ms (baseline): the hop from commit/trigger to the first socket"
    )
    print(f"  daphne, from result_at  : {summary(from_result_at)}   (start of the reveal step, before commit)")
    print(
        f"  delivered               : round.result {counts.get('round.result', 0)}/{expected_results}, "
        f"card.dealt {counts.get('card.dealt', 0)}/{expected_cards}, sockets still open {open_sockets}/{args.clients}, "
        f"heartbeat pongs {counts.get('pong', 0)} (baseline {base_counts.get('pong', 0)})"
        f"{'; channels_redis over capacity: ' + str(len(dropped_note)) if dropped_note else '; nothing over capacity'}"
    )
    print("  per round (daphne)      : first / p50 / p99 / max, ms from commit")
    for rid in sorted(measured):
        mine = [(t - committed[rid]) * 1000 for r, t in received if r == rid]
        if mine:
            print(
                f"    round {rid:<6}          : {min(mine):6.1f} / {percentile(mine, 50):6.1f} / "
                f"{percentile(mine, 99):6.1f} / {max(mine):6.1f}   (n={len(mine)})"
            )
    print(f"  frame size              : {len(sample_frame)} bytes")
    print(
        f"  server CPU per frame    : {daphne_us_per_frame:.0f} µs (daphne, all events of the run) vs "
        f"{base_us_per_frame:.0f} µs (baseline)"
    )
    print("memory per idle connection")
    print(f"  daphne (each process)   : {', '.join(f'{kb:.1f} KiB' for kb in daphne_kb)}")
    print(f"  websockets baseline     : {', '.join(f'{kb:.1f} KiB' for kb in base_kb)}")
    print(
        f"client processes' CPU    : {clients_busy:.2f} CPUs while the rounds played, {base_clients_busy:.2f} in the"
        f" baseline, of {os.cpu_count()} (the load generator shares the machine with the servers it measures)"
    )
    print(
        f"window-close delay (closes_at → closed) over {len(closes)} rounds on {1 + len(quiet)} tables under that load"
    )
    print(f"  {summary(closes)}")
    print(f"(process logs: {logs})")
    return Measures(
        clients=args.clients,
        instances=args.instances,
        p99=p99,
        base_p99=base_p99,
        closes_p99=percentile(closes, 99),
        daphne_kib=statistics.mean(daphne_kb),
        base_kib=statistics.mean(base_kb),
        delivered=counts.get("round.result", 0) == expected_results,
    )


def record_fanout(m: Measures) -> bool:
    """This script's goals: the fan-out's p99 and the window-close delay under it. True if both are met."""
    fanout_met = m.p99 <= 250 and m.p99 <= 2 * m.base_p99
    closes_met = m.closes_p99 <= 1000
    record(
        f"round.result to {m.clients} sockets, p99",
        m.p99,
        "ms",
        baseline=m.base_p99,
        goal="≤ 250 ms and ≤ 2× baseline",
        met=fanout_met,
    )
    record("window-close delay under that load, p99", m.closes_p99, "ms", goal="≤ 1,000 ms", met=closes_met)
    print(
        f"goals: fan-out p99 ≤ 250 ms and ≤ 2× baseline {'met' if fanout_met else 'MISSED'}; window-close p99 "
        f"≤ 1,000 ms {'met' if closes_met else 'MISSED'}"
    )
    return fanout_met and closes_met


def _result_frame(round_: Any) -> dict[str, Any]:
    from baccarat_site.clock import iso
    from tables.selectors.tables import cards_with_totals, shoe_roads

    return {
        "type": "round.result",
        "table_id": round_.table_id,
        "round_id": round_.pk,
        "number": round_.number,
        "shoe_number": round_.shoe.number,
        "cards": cards_with_totals(round_.cards),
        "player_cards": [c["card"] for c in round_.cards if c["hand"] == "player"],
        "banker_cards": [c["card"] for c in round_.cards if c["hand"] == "banker"],
        "player_total": round_.player_total,
        "banker_total": round_.banker_total,
        "winner": round_.winner,
        "flags": round_.flags,
        "is_last_of_shoe": round_.is_last_of_shoe,
        "roads": shoe_roads(round_.shoe_id),
        "result_at": iso(round_.result_at),
    }


def parser(doc: str | None, **defaults: Any) -> argparse.ArgumentParser:
    """The options of a fan-out run (this script's, and bench/sockets_per_daphne.py's with its own defaults)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--instances", type=int, default=2, help="daphne processes (and baseline servers)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds played under load (the first warms up)")
    parser.add_argument("--client-procs", type=int, default=4)
    parser.add_argument("--quiet-tables", type=int, default=4)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument(
        "--heartbeat", type=float, default=0, help="each client pings every that many seconds (0: never)"
    )
    parser.add_argument("--database", default=BENCH_DB, help="the scratch database's name (dropped at the end)")
    parser.add_argument("--baseline-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--channel", help=argparse.SUPPRESS)
    parser.set_defaults(**defaults)
    return parser


def serve_baseline(args: argparse.Namespace) -> None:
    """This file run as ``--baseline-server PORT --channel NAME``: one baseline server (a process of its own)."""
    asyncio.run(baseline_server(args.baseline_server, os.environ["REDIS_URL"], args.channel))


def main() -> int:
    args = parser(__doc__).parse_args()
    if args.baseline_server:
        serve_baseline(args)
        return 0
    return 0 if record_fanout(run(args)) else 1


if __name__ == "__main__":
    sys.exit(main())
