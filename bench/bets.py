"""Benchmark of the money path, each figure next to a baseline measured in the same run.

    .venv/bin/python bench/bets.py [--server gunicorn|daphne] [--servers 2] [--workers 4] [--players 200]

What it does (everything on loopback; everything it starts, it stops):

1. Creates a scratch database ``baccarat_bench`` on the configured PostgreSQL
   (the embedded one under var/ when DATABASE_URL is unset), migrates it, and
   makes players, tokens and funded wallets (through wallets.services).
2. Starts ``--servers`` HTTP servers on 127.0.0.1:<base-port>… against it: gunicorn with
   ``--workers`` sync WSGI workers each (default: two per core in all), the deployment
   of the REST API in docs/deployment.md (WebSockets stay on daphne), or with ``--server daphne`` daphne processes
   serving HTTP through ASGI (BET_THROTTLE_RATE lifted so the throttle does not shape the load).
3. Warms the servers up (3 s of confirms on another round, not measured).
   (a) Burst: ``--players`` players each confirm a batch of three bets over
   HTTP at a random moment within the last second of a betting window:
   p50/p99 latency (goal p99 ≤ 50 ms).
   (b) Saturation: closed-loop confirms/s through the API with ``--clients``
   concurrent clients, next to a raw psycopg transaction doing the same row
   locks and inserts (goal ≥ 0.5× its rate); the two alternate ``--repeats``
   times and each reports its best run. For reference, the same raw
   transaction also updating one shared house balance row (the hot row this
   design avoids). With ``--floor``, also the floor: the same clients against
   gunicorn serving bench/floor_wsgi.py, the confirm with no framework (the
   token read and the raw transaction): the most a confirm over HTTP could reach.
   (c) Settlement: round_settle of a round with 10,000 bets from 2,000 players, up to its commit, on
   ``--settle-rounds`` rounds (3), medians judged
   (goal ≤ 3× a raw COPY of the same rows, measured in the same run, and ≤ 150 ms); the players'
   messages, built and sent after the commit, are timed apart. ``--settlement-only`` runs (c) alone;
   ``--steps`` also prints each of its statements and the commit (where the deferred foreign-key
   checks run), to see where the time goes.
4. Stops the servers, checks the scratch ledger reconciles, drops the database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baccarat_site import daphne_server  # noqa: E402

# Django, and the project's modules that need it, are imported inside the functions that use them: the
# scratch database's settings exist only once django_setup() has run.
from bench.chips import chip_batch, chip_stack, rack  # noqa: E402
from bench.results import record  # noqa: E402
from bench.scratch import django_setup, drop_database, recreate_database, service_urls, stop_groups  # noqa: E402

BENCH_DB = os.environ.get("BENCH_DB", "baccarat_bench")  # another name for runs side by side
LOOPBACK = "127.0.0.1"


# ── servers and database ────────────────────────────────────────────────────


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (Linux /proc; 0 elsewhere)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def postgres_cpu() -> float:
    """CPU of every PostgreSQL process so far, including backends that have exited (they are
    counted in the postmaster's children time)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                ticks = int(fields[11]) + int(fields[12])
                if int(fields[1]) == 1 or (Path(f"/proc/{fields[1]}/comm").read_text().strip() != "postgres"):
                    ticks += int(fields[13]) + int(fields[14])  # the postmaster: its reaped children too
                total += ticks / os.sysconf("SC_CLK_TCK")
    return total


def pool_size(db_url: str, servers: int, clients: int) -> int:
    """Connections per server: up to 40, leaving room under max_connections for the raw baseline
    (one connection per client), this process and whoever else uses the server."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        limit = int(conn.execute("SHOW max_connections").fetchone()[0])
        used = int(conn.execute("SELECT count(*) FROM pg_stat_activity").fetchone()[0])
    return max(4, min(40, (limit - used - clients - 10) // servers))


def free_port(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex((LOOPBACK, port)) != 0


def server_command(server: str, port: int, workers: int) -> list[str]:
    """The HTTP server: gunicorn's WSGI workers (the REST API in docs/deployment.md) or daphne (ASGI); ``floor``
    is gunicorn serving bench/floor_wsgi.py, the confirm with no framework."""
    if server in ("gunicorn", "floor"):
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        return [
            gunicorn,
            *("-b", f"{LOOPBACK}:{port}", "-w", str(workers), "--log-level", "warning"),
            "baccarat_site.wsgi:application" if server == "gunicorn" else "bench.floor_wsgi:application",
        ]
    return daphne_server.command(LOOPBACK, port, "--verbosity", "0")


def process_tree(pids: list[int]) -> list[int]:
    """These processes and all their descendants (gunicorn's workers are children of its master)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.name.isdigit():
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += parents.get(pid, [])
    return found


def start_servers(
    count: int, base_port: int, env: dict[str, str], server: str = "daphne", workers: int = 4
) -> tuple[list[subprocess.Popen], list[int]]:
    ports = []
    port = base_port
    while len(ports) < count:
        if free_port(port):
            ports.append(port)
        port += 1
    procs = [
        subprocess.Popen(
            server_command(server, p, workers),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        for p in ports
    ]
    deadline = time.monotonic() + 60
    for proc, p in zip(procs, ports, strict=True):
        while True:
            if proc.poll() is not None:
                stop_groups(procs)
                raise SystemExit(f"{server} on {p} exited: {proc.stderr.read().decode()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, p), timeout=0.5):
                break
            if time.monotonic() > deadline:
                stop_groups(procs)
                raise SystemExit(f"{server} on {p} did not start")
            time.sleep(0.2)
    return procs, ports


# ── data ────────────────────────────────────────────────────────────────────


def make_players(count: int, balance: Decimal, prefix: str) -> list[tuple[int, str]]:
    """``count`` players with tokens and funded wallets: [(user id, token key)]. Users and tokens are
    bulk-inserted (no per-user password hashing); the money goes through wallets.services."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from rest_framework.authtoken.models import Token

    from wallets import services
    from wallets.models import LedgerTransaction, Wallet

    user_model = get_user_model()
    password = make_password("bench-pass-123")  # hashed once, shared
    users = user_model.objects.bulk_create(
        [user_model(username=f"{prefix}{i}", password=password) for i in range(count)]
    )
    Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users])
    Wallet.objects.bulk_create([Wallet(user=u, kind=Wallet.Kind.PLAYER) for u in users])
    services.house_wallet()
    services.wallets_credit_many(
        credits={u.pk: balance for u in users}, kind=LedgerTransaction.Kind.DEPOSIT, reference="bench:funding"
    )
    tokens = dict(Token.objects.filter(user__in=users).values_list("user_id", "key"))
    return [(u.pk, tokens[u.pk]) for u in users]


def open_round(name: str, seconds: float):
    from tests.factories import make_round, make_table

    return make_round(make_table(name), closes_in=seconds)


def limits_of(round_) -> Any:
    """The engine Limits a round opened with (its terms): what its bets are checked against."""
    from tables.engine import Limits

    return Limits.from_dict(round_.terms["limits"])


# ── a tiny keep-alive HTTP/1.1 client ───────────────────────────────────────


class Http:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(LOOPBACK, self.port)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None):
        reused = self.writer is not None
        if self.writer is None:
            await self.open()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {LOOPBACK}:{self.port}", f"Content-Length: {len(body)}"]
        if body:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        try:
            self.writer.write(request)
            await self.writer.drain()
            status_line = await self.reader.readline()
        except ConnectionError:
            status_line = b""
        if not status_line and reused:
            # The server closed this kept-alive connection while it was idle: reconnect and send again,
            # as HTTP clients do (every request here is safe to repeat: confirms carry an Idempotency-Key).
            await self.close()
            await self.open()
            self.writer.write(request)
            await self.writer.drain()
            status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length, chunked, close = None, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        if chunked:
            data = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                data += chunk[:-2]
        else:
            data = await self.reader.readexactly(length or 0)
        if close:
            await self.close()
            self.writer = None
        return status, data


#: What the HTTP confirms bet on: three spots, each a chip stack (bench/chips.py) of the bench table's rack.
CONFIRM_TYPES = ("player", "banker", "tie")


def confirm_body(rng: random.Random, limits: Any, chips: list[int] | None = None) -> bytes:
    """A confirm of Player, Banker and Tie, each a stack of chips: of the table's whole rack, or of ``chips``
    (the saturation loop bets the rack's smallest chips, so a player's repeated confirms stay within the
    round's limits)."""
    if chips is None:
        bets = chip_batch(rng, limits, CONFIRM_TYPES)
    else:
        bets = [{"type": t, "amount": f"{chip_stack(rng, chips, 3):.2f}"} for t in CONFIRM_TYPES]
    return json.dumps({"mode": "traditional", "bets": bets}).encode()


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


# ── (a) burst ───────────────────────────────────────────────────────────────


async def burst(players: list[tuple[int, str]], ports: list[int], round_id: int, closes_at: float, limits: Any) -> dict:
    clients = [Http(ports[i % len(ports)]) for i in range(len(players))]
    await asyncio.gather(*(c.open() for c in clients))
    # Warm each connection (and the server's code paths) before the window's last second.
    await asyncio.gather(
        *(c.request("GET", "/api/wallet/", headers=auth(t)) for c, (_, t) in zip(clients, players, strict=True))
    )
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    loop = asyncio.get_running_loop()
    start = closes_at - 1.0
    rng = random.Random(round_id)

    async def one(client: Http, token: str) -> None:
        when = start + random.uniform(0, 0.95)
        await asyncio.sleep(max(0.0, when - time.time()))
        t0 = loop.time()
        status, _ = await client.request(
            "POST",
            f"/api/rounds/{round_id}/bets/",
            confirm_body(rng, limits),
            {**auth(token), "Idempotency-Key": str(uuid.uuid4())},
        )
        latencies.append((loop.time() - t0) * 1000)
        statuses[status] = statuses.get(status, 0) + 1

    await asyncio.gather(*(one(c, t) for c, (_, t) in zip(clients, players, strict=True)))
    await asyncio.gather(*(c.close() for c in clients))
    return {"latencies": latencies, "statuses": statuses}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


# ── (b) saturation ──────────────────────────────────────────────────────────


async def warm_players(players: list[tuple[int, str]], ports: list[int], clients: int) -> None:
    """Every player's first request (its token, its wallet), before the timed runs and their CPU counts."""
    connections = [Http(ports[i % len(ports)]) for i in range(clients)]
    await asyncio.gather(*(c.open() for c in connections))
    for start in range(0, len(players), clients):
        batch = players[start : start + clients]
        await asyncio.gather(
            *(c.request("GET", "/api/wallet/", headers=auth(t)) for c, (_, t) in zip(connections, batch, strict=False))
        )
    await asyncio.gather(*(c.close() for c in connections))


async def api_closed_loop(
    players: list[tuple[int, str]],
    ports: list[int],
    round_id: int,
    seconds: float,
    limits: Any,
    clients: int | None = None,
) -> dict:
    """``clients`` closed-loop clients (default: one per player), client ``i`` confirming for the players
    ``players[i::clients]`` in turn, so that with more players than clients each confirms a few times a round, as
    a player does, rather than hundreds of times."""
    count = clients or len(players)
    pools = [players[i::count] for i in range(count)]
    connections = [Http(ports[i % len(ports)]) for i in range(count)]
    await asyncio.gather(*(c.open() for c in connections))
    await asyncio.gather(
        *(
            c.request("GET", "/api/wallet/", headers=auth(pool[0][1]))
            for c, pool in zip(connections, pools, strict=True)
        )
    )
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    errors: dict[int, int] = {}
    rng = random.Random(round_id)
    small = rack(limits)[:2]
    stop_at = loop.time() + seconds

    async def run(client: Http, pool: list[tuple[int, str]]) -> None:
        turn = 0
        while loop.time() < stop_at:
            token = pool[turn % len(pool)][1]
            turn += 1
            t0 = loop.time()
            body = confirm_body(rng, limits, small)
            status, _ = await client.request(
                "POST", f"/api/rounds/{round_id}/bets/", body, {**auth(token), "Idempotency-Key": str(uuid.uuid4())}
            )
            if status == 201:
                latencies.append((loop.time() - t0) * 1000)
            else:
                errors[status] = errors.get(status, 0) + 1

    began = loop.time()
    await asyncio.gather(*(run(c, pool) for c, pool in zip(connections, pools, strict=True)))
    elapsed = loop.time() - began
    await asyncio.gather(*(c.close() for c in connections))
    return {"rate": len(latencies) / elapsed, "latencies": latencies, "errors": errors}


RAW_BET = [
    "SELECT r.id FROM tables_round r JOIN tables_table t ON t.id = r.table_id"
    " WHERE r.id = %(round)s AND r.state = 'betting' FOR SHARE OF r",
    "SELECT balance FROM wallets_wallet WHERE user_id = %(user)s FOR UPDATE",
    "INSERT INTO wallets_ledgertransaction (kind, reference, reason, created_at)"
    " VALUES ('stake', 'bench:raw', '', now()) RETURNING id",
    "INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, amount, balance_after, created_at) VALUES"
    " (%(txn)s, %(wallet)s, -3.00, %(after)s, now()), (%(txn)s, %(house)s, 3.00, NULL, now())",
    "UPDATE wallets_wallet SET balance = %(after)s WHERE id = %(wallet)s",
    "INSERT INTO tables_betplacement (user_id, round_id, idempotency_key, fingerprint, mode,"
    " stake_transaction_id, response, created_at)"
    " VALUES (%(user)s, %(round)s, %(key)s, '', 'traditional', %(txn)s, '{}', now()) RETURNING id",
    "INSERT INTO tables_bet (round_id, user_id, placement_id, type, amount, mode, placed_at)"
    " SELECT %(round)s, %(user)s, %(placement)s, t, 1.00, 'traditional', now()"
    " FROM unnest(ARRAY['player', 'banker', 'tie']) AS t",
]
HOT_ROW = "UPDATE wallets_wallet SET balance = balance + 3.00 WHERE id = %(house)s"


async def raw_closed_loop(
    db_url: str, players: list[tuple[int, int]], house_id: int, round_id: int, seconds: float, hot_row: bool
) -> dict:
    """The same row locks and inserts as a confirm, as raw psycopg transactions (one connection per client)."""
    conns = [await psycopg.AsyncConnection.connect(db_url) for _ in players]
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    stop_at = loop.time() + seconds

    async def run(conn, user_id: int, wallet_id: int) -> None:
        while loop.time() < stop_at:
            t0 = loop.time()
            async with conn.transaction():
                p = {"round": round_id, "user": user_id, "wallet": wallet_id, "house": house_id}
                await conn.execute(RAW_BET[0], p)
                balance = (await (await conn.execute(RAW_BET[1], p)).fetchone())[0]
                p["after"] = balance - Decimal("3.00")
                p["txn"] = (await (await conn.execute(RAW_BET[2], p)).fetchone())[0]
                await conn.execute(RAW_BET[3], p)
                await conn.execute(RAW_BET[4], p)
                if hot_row:
                    await conn.execute(HOT_ROW, p)
                p["key"] = uuid.uuid4().hex
                p["placement"] = (await (await conn.execute(RAW_BET[5], p)).fetchone())[0]
                await conn.execute(RAW_BET[6], p)
            latencies.append((loop.time() - t0) * 1000)

    began = loop.time()
    await asyncio.gather(*(run(c, u, w) for c, (u, w) in zip(conns, players, strict=True)))
    elapsed = loop.time() - began
    for conn in conns:
        await conn.close()
    return {"rate": len(latencies) / elapsed, "latencies": latencies}


# ── (c) settlement ──────────────────────────────────────────────────────────


@contextlib.contextmanager
def statement_times(steps: list[tuple[float, str]]):
    """Time every statement on the default connection (Django's and the prepared cursors') and the commit,
    appending ``(seconds, first words)`` to ``steps``: where a settlement's time goes (``--steps``)."""
    from django.db import connection

    from baccarat_site import db

    def note(t0: float, sql: object) -> None:
        steps.append((time.perf_counter() - t0, " ".join(str(sql).split())[:70]))

    class TimedCursor(psycopg.Cursor):
        def execute(self, query, params=None, **kwargs):
            t0 = time.perf_counter()
            try:
                return super().execute(query, params, **kwargs)
            finally:
                note(t0, query)

    def wrapper(execute, sql, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            note(t0, sql)

    real_cursor, real_commit = db.Cursor, connection._commit

    def commit():
        t0 = time.perf_counter()
        try:
            return real_commit()
        finally:
            note(t0, "COMMIT (the deferred foreign-key checks run here)")

    db.Cursor, connection._commit = TimedCursor, commit
    try:
        with connection.execute_wrapper(wrapper):
            yield
    finally:
        db.Cursor, connection._commit = real_cursor, real_commit


def settlement(players: list[tuple[int, str]], bets_each: int, show_steps: bool = False, number: int = 1) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tables.models import Bet, BetOutcome, Round
    from tables.selectors.outcomes import bet_payout
    from tables.services import placement, settlement

    round_ = open_round(f"Bench settle {number}", 3600)
    limits = limits_of(round_)
    rng = random.Random(number)
    users = get_user_model().objects.in_bulk([uid for uid, _ in players])
    types = ("player", "banker", "tie", "player_pair", "banker_pair", "lucky_six", "any_pair")
    began = time.perf_counter()
    for uid, _ in players:
        placement.bet_place(
            user=users[uid],
            round_id=round_.pk,
            mode=rng.choice(("traditional", "no_commission")),
            bets=chip_batch(rng, limits, rng.sample(types, bets_each)),  # each bet a stack of the table's chips
            idempotency_key=str(uuid.uuid4()),
        )
    placing = time.perf_counter() - began
    # Banker wins with a two-card 6 (many bet types pay), as the live loop would leave it.
    cards = [("player", "3H"), ("banker", "6D"), ("player", "2C"), ("banker", "KS"), ("player", "8C")]
    Round.objects.filter(pk=round_.pk).update(
        state="result",
        cards=[{"hand": h, "card": c, "position": i} for i, (h, c) in enumerate(cards, start=1)],
    )
    count = Bet.objects.filter(round=round_).count()

    # The players' messages are built and sent after the commit (settlement_announce); time them apart.
    sent = {"seconds": 0.0, "messages": 0}
    real_announce = settlement.settlement_announce

    def timed_announce(done: settlement.Settlement) -> None:
        t0 = time.perf_counter()
        real_announce(done)
        sent["seconds"] += time.perf_counter() - t0
        sent["messages"] += len(done.bettors)

    settlement.settlement_announce = timed_announce
    steps: list[tuple[float, str]] = []
    try:
        with statement_times(steps) if show_steps else contextlib.nullcontext():
            t0 = time.perf_counter()
            settled = settlement.round_settle(round_id=round_.pk)
            total = time.perf_counter() - t0 - sent["seconds"]
    finally:
        settlement.settlement_announce = real_announce
    if show_steps:
        print("\n(c) round_settle, statement by statement (the announcement after the commit left out):")
        for seconds, sql in steps[: next(i for i, (_, q) in enumerate(steps) if q.startswith("COMMIT")) + 1]:
            print(f"    {seconds * 1000:7.1f} ms  {sql}")
    assert settled == count, (settled, count)

    # Baseline: COPY, into scratch tables of the same shape, the rows that record this settlement as the issue
    # that set the goal measured it: every bet's outcome and payout, and one transaction with two entries (the
    # player's, the house's) per paid player. Settlement writes far fewer rows (the round's outcomes, one per
    # type and mode bet on, one transaction for the round, a leg per paid player and one house leg); that
    # smaller COPY is timed too, for comparison.
    txn = Round.objects.values_list("settlement_transaction_id", flat=True).get(pk=round_.pk)
    rows = [
        (bet_id, status, payout, txn if payout else None)
        for bet_id, status, payout in Bet.objects.filter(round=round_).values_list(
            "id", "outcome__status", bet_payout()
        )
    ]
    distinct_amounts = Bet.objects.filter(round=round_).values("amount").distinct().count()
    outcomes = list(BetOutcome.objects.filter(round=round_).values_list("id", "status", "odds"))
    written = [(oid, status, odds, None) for oid, status, odds in outcomes]
    returns = Bet.objects.filter(round=round_).values_list("user_id", bet_payout())
    paid = sorted({uid for uid, payout in returns if payout})

    def copy_rows(outcomes: list[tuple], transactions: int, entries: int) -> float:
        t0 = time.perf_counter()
        with connection.cursor() as cursor:
            raw = cursor.connection
            with raw.transaction():
                raw.execute(
                    "CREATE TEMP TABLE copy_bet (id bigint, status varchar(9), payout numeric(14,2),"
                    " settlement_transaction_id bigint, settled_at timestamptz) ON COMMIT DROP"
                )
                raw.execute("CREATE TEMP TABLE copy_txn (LIKE wallets_ledgertransaction) ON COMMIT DROP")
                raw.execute("CREATE TEMP TABLE copy_entry (LIKE wallets_ledgerentry) ON COMMIT DROP")
                with raw.cursor().copy("COPY copy_bet FROM STDIN") as copy:
                    for row_id, status, payout, txn in outcomes:
                        copy.write_row((row_id, status, payout, txn, "now"))
                with raw.cursor().copy("COPY copy_txn FROM STDIN") as copy:
                    for txn in range(transactions):
                        copy.write_row((txn, "payout", "bench", "", "now", None))
                with raw.cursor().copy("COPY copy_entry FROM STDIN") as copy:
                    for i in range(entries):  # a player's leg, then the house's
                        leg = (Decimal("1.00"), Decimal("1.00")) if i % 2 == 0 else (Decimal("-1.00"), None)
                        copy.write_row((i, *leg, "now", i // 2, 1))
        return time.perf_counter() - t0

    copy_seconds = copy_rows(rows, len(paid), 2 * len(paid))
    copy_written_seconds = copy_rows(written, 1 if paid else 0, len(paid) + 1 if paid else 0)

    return {
        "bets": count,
        "players": len(players),
        "placing": placing,
        "settle": total,
        "events": sent["seconds"],
        "messages": sent["messages"],
        "copy": copy_seconds,
        "copy_written": copy_written_seconds,
        "payers": len(paid),
        "outcomes": len(outcomes),
        "amounts": distinct_amounts,
    }


# ── main ────────────────────────────────────────────────────────────────────


def load(args, bench_url, redis_url, burst_players, loop_players, raw_players) -> None:
    """(a) and (b): servers, the burst and the saturation runs."""
    from wallets import services as wallet_services
    from wallets.models import Wallet

    procs: list[subprocess.Popen] = []
    try:
        pool = pool_size(bench_url, args.servers, args.clients)
        env = {
            **os.environ,
            "DATABASE_URL": bench_url,
            "REDIS_URL": redis_url,
            "BET_THROTTLE_RATE": "1000000/second",
            # gunicorn's sync workers keep one persistent connection each; daphne runs each request in a
            # new thread, so it needs the pool.
            **(
                {"DB_POOL": "0", "DB_CONN_MAX_AGE": "600"}
                if args.server == "gunicorn"
                else {"DB_POOL": "1", "DB_POOL_SIZE": str(pool)}
            ),
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
        }
        procs, ports = start_servers(args.servers, args.base_port, env, args.server, args.workers)
        shape = (
            f"{args.workers} sync WSGI workers each, one persistent connection per worker"
            if args.server == "gunicorn"
            else f"DB_POOL=1, up to {pool} pooled connections each"
        )
        print(
            f"servers: {len(procs)} × {args.server} on " + ", ".join(f"{LOOPBACK}:{p}" for p in ports),
            f"({shape}; BET_THROTTLE_RATE lifted)",
        )

        # Warm-up (not measured): long-running servers have warm code paths, pooled connections
        # with cached plans and catalog caches; fresh ones pay for all of that on their first requests.
        warm = open_round("Bench warm-up", 3600)
        warmed = asyncio.run(api_closed_loop(burst_players, ports, warm.pk, 3.0, limits_of(warm)))
        print(f"warm-up: {warmed['rate']:.0f} confirms/s for 3 s with {len(burst_players)} clients (not measured)")

        # (a) burst: the specified size, then half of it for context
        print()
        print("(a) burst: each player confirms 3 bets at a random moment in the window's last second")
        for size in (args.players, args.players // 2):
            round_ = open_round(f"Bench burst {size}", 4.0)
            result = asyncio.run(
                burst(burst_players[:size], ports, round_.pk, round_.closes_at.timestamp(), limits_of(round_))
            )
            lat = result["latencies"]
            print(
                f"    {size:4d} players: p50 {pct(lat, 50):7.1f} ms   p99 {pct(lat, 99):7.1f} ms"
                f"   max {max(lat):7.1f} ms   statuses {result['statuses']}"
                + ("   (goal p99 ≤ 50 ms)" if size == args.players else "")
            )
            if size == args.players:
                record(
                    f"bet burst, {size} players × 3 in the last second, p99",
                    pct(lat, 99),
                    "ms",
                    goal="≤ 50 ms",
                    met=pct(lat, 99) <= 50,
                )

        # (b) saturation: the API and the raw baseline alternate, ``--repeats`` times each, and each
        # reports its best run, so a background hiccup (autovacuum, a checkpoint) in one run of either
        # does not decide the ratio.
        house_id = wallet_services.house_wallet().pk
        wallets = dict(Wallet.objects.filter(user_id__in=[u for u, _ in raw_players]).values_list("user_id", "id"))
        raw_pairs = [(u, wallets[u]) for u, _ in raw_players]
        server_pids = process_tree([p.pid for p in procs])
        asyncio.run(warm_players(loop_players, ports, args.clients))
        floor_ports: list[int] = []
        if args.floor:
            floor_procs, floor_ports = start_servers(
                args.servers, max(ports) + 1, env, "floor", args.workers if args.server == "gunicorn" else 2
            )
            procs += floor_procs
            floor_pids = process_tree([p.pid for p in floor_procs])
            print(f"floor: {len(floor_procs)} × gunicorn serving bench/floor_wsgi.py on {floor_ports}")
        api_runs, raw_runs, floor_runs = [], [], []

        def served_run(label: str, targets: list[int], pids: list[int]) -> dict:
            served = open_round(f"Bench {label} {attempt}", 3600)
            servers_cpu, pg_cpu = cpu_seconds(pids), postgres_cpu()
            run = asyncio.run(
                api_closed_loop(loop_players, targets, served.pk, args.seconds, limits_of(served), args.clients)
            )
            done = max(1, len(run["latencies"]))
            run["cpu"] = ((cpu_seconds(pids) - servers_cpu) / done * 1000, (postgres_cpu() - pg_cpu) / done * 1000)
            return run

        for attempt in range(1, args.repeats + 1):
            api_runs.append(served_run("loop", ports, server_pids))
            if args.floor:
                floor_runs.append(served_run("floor", floor_ports, floor_pids))
            raw_round = open_round(f"Bench raw {attempt}", 3600)
            pg_cpu = postgres_cpu()
            run = asyncio.run(
                raw_closed_loop(bench_url, raw_pairs, house_id, raw_round.pk, args.seconds, hot_row=False)
            )
            run["pg_ms"] = (postgres_cpu() - pg_cpu) / max(1, len(run["latencies"])) * 1000
            raw_runs.append(run)
        api = max(api_runs, key=lambda r: r["rate"])
        raw = max(raw_runs, key=lambda r: r["rate"])
        raw_pg_ms = raw["pg_ms"]
        stop_groups(procs)
        procs = []
        hot_round = open_round("Bench hot", 3600)
        hot = asyncio.run(raw_closed_loop(bench_url, raw_pairs, house_id, hot_round.pk, args.seconds, hot_row=True))
        print()
        api_rates = ", ".join(f"{r['rate']:.0f}" for r in api_runs)
        raw_rates = ", ".join(f"{r['rate']:.0f}" for r in raw_runs)
        runs = f"API {api_rates}; raw {raw_rates}"
        floor = max(floor_runs, key=lambda r: r["rate"]) if floor_runs else None
        if floor is not None:
            runs += "; floor " + ", ".join(f"{r['rate']:.0f}" for r in floor_runs)
        print(
            f"(b) saturation: {args.clients} closed-loop clients for {len(loop_players)} players,"
            f" {args.seconds:.0f} s a run, the best of"
            f" {args.repeats} alternating runs each (every run, confirms/s: {runs})"
        )
        print(f"    {'':44} {'confirms/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
        for label, r in (
            (f"API (HTTP → {args.server} → bet_place)", api),
            ("baseline: raw psycopg, same locks + inserts", raw),
            ("reference: raw + one shared house row", hot),
            *((("floor: HTTP → gunicorn → raw, no framework", floor),) if floor is not None else ()),
        ):
            print(f"    {label:44} {r['rate']:10.0f} {pct(r['latencies'], 50):8.1f} {pct(r['latencies'], 99):8.1f}")
        if api["errors"]:
            print(f"    API refusals: {api['errors']}")
        print(f"    API / baseline = {api['rate'] / raw['rate']:.2f}×   (goal ≥ 0.5×)")
        record(
            f"confirms saturated, {args.clients} clients, {len(loop_players)} players ({args.server})",
            api["rate"],
            "confirms/s",
            baseline=raw["rate"],
            goal="≥ 0.5× raw psycopg",
            met=api["rate"] >= 0.5 * raw["rate"],
        )
        print(
            f"    CPU per confirm: {args.server} {api['cpu'][0]:.1f} ms + PostgreSQL {api['cpu'][1]:.1f} ms"
            f"  (raw baseline: PostgreSQL {raw_pg_ms:.1f} ms); this machine has {os.cpu_count()} CPUs"
        )
        if floor is not None:
            print(
                f"    floor / baseline = {floor['rate'] / raw['rate']:.2f}×,"
                f" API / floor = {api['rate'] / floor['rate']:.2f}×;"
                f" CPU per confirm: floor's gunicorn {floor['cpu'][0]:.1f} ms + PostgreSQL {floor['cpu'][1]:.1f} ms"
            )

    finally:
        stop_groups(procs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, default=2, help="daphne processes (default 2)")
    parser.add_argument("--base-port", type=int, default=18101, help="first port tried (default 18101)")
    parser.add_argument("--players", type=int, default=200, help="players in the burst (default 200)")
    parser.add_argument("--clients", type=int, default=32, help="closed-loop clients in saturation (default 32)")
    parser.add_argument(
        "--players-per-client",
        type=int,
        default=50,
        choices=range(1, 1001),
        metavar="1..1000",
        help="players each saturation client confirms for in turn (default 50: a player confirms a few times a"
        " round, not hundreds; 1 is one player per client, as before 2026-11-27)",
    )
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each saturation run (default 8)")
    parser.add_argument("--repeats", type=int, default=2, help="alternating API/baseline saturation runs (default 2)")
    parser.add_argument(
        "--server",
        choices=("gunicorn", "daphne"),
        default="gunicorn",
        help="HTTP server: gunicorn WSGI workers, as docs/deployment.md deploys the REST API (default), or daphne",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="gunicorn workers per server (default: two per core in all, as docs/deployment.md recommends)",
    )
    parser.add_argument("--settle-players", type=int, default=2000)
    parser.add_argument("--settle-bets-each", type=int, default=5)
    parser.add_argument("--settle-rounds", type=int, default=3, help="rounds settled, medians judged (default 3)")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also saturate bench/floor_wsgi.py (gunicorn, no framework: the token read and the raw transaction)",
    )
    parser.add_argument("--keep-db", action="store_true", help="leave the scratch database for inspection")
    parser.add_argument("--steps", action="store_true", help="also time each statement of the settlement")
    parser.add_argument("--settlement-only", action="store_true", help="run (c) only: no servers, no burst")
    args = parser.parse_args()
    if args.workers <= 0:
        args.workers = max(1, 2 * (os.cpu_count() or 1) // args.servers)

    db_url, redis_url = service_urls()
    bench_url = recreate_database(db_url, BENCH_DB)
    procs: list[subprocess.Popen] = []
    try:
        django_setup(
            bench_url, redis_url, CHANNELS_PREFIX=f"bench{os.getpid()}", CACHE_KEY_PREFIX=f"bench{os.getpid()}"
        )
        from tables.selectors.bets import casino_reconciliation

        print(f"database: {urlsplit(bench_url).path.lstrip('/')} (scratch, on the configured PostgreSQL)")
        t0 = time.perf_counter()
        burst_players: list = []
        loop_players: list = []
        raw_players: list = []
        if not args.settlement_only:
            burst_players = make_players(args.players, Decimal("100000.00"), "burst")
            loop_players = make_players(args.clients * args.players_per_client, Decimal("1000000.00"), "loop")
            raw_players = make_players(args.clients, Decimal("1000000.00"), "raw")
        settle_players = make_players(args.settle_players, Decimal("100000.00"), "settle")
        print(
            f"setup: {args.players + (1 + args.players_per_client) * args.clients + args.settle_players} players"
            f" in {time.perf_counter() - t0:.1f}s"
        )

        if not args.settlement_only:
            load(args, bench_url, redis_url, burst_players, loop_players, raw_players)

        # (c) settlement
        # One settlement is one sample on a machine whose speed drifts from second to second: settle
        # --settle-rounds rounds, each next to its own COPYs, and judge the medians.
        runs = [
            settlement(settle_players, args.settle_bets_each, show_steps=args.steps, number=n)
            for n in range(1, args.settle_rounds + 1)
        ]
        settle = {
            key: statistics.median(run[key] for run in runs) for key in ("settle", "copy", "copy_written", "events")
        }
        settle.update({key: runs[0][key] for key in ("bets", "players", "messages")})
        settle["payers"] = round(statistics.median(run["payers"] for run in runs))
        settle["outcomes"] = round(statistics.median(run["outcomes"] for run in runs))
        settle["amounts"] = round(statistics.median(run["amounts"] for run in runs))
        print()
        print(
            f"(c) settlement: {settle['bets']:,} bets from {settle['players']:,} players over {settle['amounts']:,}"
            f" distinct amounts (chip stacks), {len(runs)} rounds"
            f" (placed through bet_place in {sum(run['placing'] for run in runs):.1f}s)"
        )
        for n, run in enumerate(runs, start=1):
            print(
                f"    round {n}: round_settle {run['settle'] * 1000:5.0f} ms, COPY {run['copy'] * 1000:4.0f} ms"
                f" = {run['settle'] / run['copy']:.1f}×"
            )
        ratio = settle["settle"] / settle["copy"]
        print(
            f"    round_settle, to its commit       {settle['settle'] * 1000:8.0f} ms   = {ratio:.1f}× the COPY"
            "   (medians; goal ≤ 3× and ≤ 150 ms)"
        )
        record(
            f"settlement of {settle['bets']:,} bets, to commit (median of {len(runs)})",
            settle["settle"] * 1000,
            "ms",
            baseline=settle["copy"] * 1000,
            goal="≤ 3× raw COPY and ≤ 150 ms",
            met=ratio <= 3 and settle["settle"] <= 0.150,
        )
        print(
            f"    then, after the commit, telling players {settle['events'] * 1000:6.0f} ms",
            f"({settle['messages']:,} messages built and sent; the round is not held)",
        )
        print(
            f"    baseline: raw COPY of the rows    {settle['copy'] * 1000:8.0f} ms   "
            f"({settle['bets']:,} bet outcomes, {settle['payers']:,} transactions, {2 * settle['payers']:,} entries:"
            " a transaction per paid player, as the goal was set)"
        )
        print(
            f"    the COPY of the rows it now writes {settle['copy_written'] * 1000:7.0f} ms   "
            f"({settle['outcomes']:,} outcome rows, 1 transaction, {settle['payers'] + 1:,} entries;"
            f" round_settle = {settle['settle'] / settle['copy_written']:.1f}× this)"
        )

        report = casino_reconciliation()
        print()
        print(
            f"ledger after the run: {'reconciles' if report.ok else 'DOES NOT RECONCILE'} "
            f"({report.transactions:,} transactions, {report.entries:,} entries)"
        )
        for problem in report.problems[:10]:
            print(f"    {problem}")
        return 0 if report.ok else 1
    finally:
        stop_groups(procs)
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            drop_database(db_url, BENCH_DB)


if __name__ == "__main__":
    sys.exit(main())
