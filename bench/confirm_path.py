"""Where a confirm's time goes: the REST confirm handled in this process, through the WSGI entry point it is
deployed on (docs/deployment.md; as a gunicorn sync worker runs it, without the network), layer by layer, next
to the raw psycopg transaction of bench/bets.py doing the same writes, measured in the same run.

    .venv/bin/python bench/confirm_path.py [--confirms 2000] [--profile 40 [--sort cumulative]]

What it does (everything on loopback; it drops what it made):

1. A scratch database (``BENCH_DB``, default ``baccarat_bench_path``), 32 funded players with tokens, one round
   open for an hour (BET_THROTTLE_RATE lifted, as in bench/bets.py).
2. Round robin, in batches of 100, ``--confirms`` of each of:
   - ``request``: ``POST /api/rounds/<id>/bets/`` through ``baccarat_site.wsgi.application``: every middleware,
     DRF (token check, throttle, serializer), ``bet_place``; timed to the response's last byte (what the client
     waits for) and to its ``close()`` (the worker's whole cost, work left for after the response included);
   - ``view``: the same request straight into the DRF view, no middleware;
   - ``bet_place``: the service alone, its ``bets.totals`` broadcast included;
   - ``bet_place, no broadcast``: the money path alone;
   - ``raw psycopg``: bench/bets.py's baseline transaction (same row locks and inserts) on one connection.
   Each reports wall and CPU (this process's) per confirm, medians of the batches: the differences are the
   layers' costs. PostgreSQL's own CPU is not in them (bench/bets.py measures it).
3. Counts, per request, PostgreSQL and Redis round trips and Python function calls (deterministic: they do not
   drift with the machine's load), and with ``--profile N`` prints the N functions with the most time of their
   own (cProfile; it inflates everything it times).

The figures are of one request at a time, on an idle machine: they say where the time goes, not how many confirms
a server carries (bench/bets.py).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bets import RAW_BET, confirm_body, limits_of, make_players, open_round  # noqa: E402
from bench.chips import rack  # noqa: E402
from bench.scratch import django_setup, drop_database, recreate_database, service_urls  # noqa: E402

BENCH_DB = os.environ.get("BENCH_DB", "baccarat_bench_path")
BATCH = 100
PLAYERS = 32


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--confirms", type=int, default=2000, help="confirms per layer (default 2000)")
    parser.add_argument("--profile", type=int, default=0, help="print the N functions with most own time")
    parser.add_argument(
        "--sort", choices=("tottime", "cumulative"), default="tottime", help="--profile's order (default tottime)"
    )
    args = parser.parse_args()
    batches = max(1, args.confirms // BATCH)

    db_url, redis_url = service_urls()
    bench_url = recreate_database(db_url, BENCH_DB)
    os.environ.update({"BET_THROTTLE_RATE": "1000000/second", "DB_CONN_MAX_AGE": "600", "DEBUG": "0"})
    try:
        django_setup(
            bench_url, redis_url, CHANNELS_PREFIX=f"benchpath{os.getpid()}", CACHE_KEY_PREFIX=f"benchpath{os.getpid()}"
        )
        return run(bench_url, batches, args.profile, args.sort)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(db_url, BENCH_DB)


def run(bench_url: str, batches: int, profile: int, sort: str = "tottime") -> int:
    from django.contrib.auth import get_user_model

    from baccarat_site.wsgi import application
    from tables import events
    from tables.apis import BetPlaceApi
    from tables.services.placement import bet_place
    from wallets import services as wallet_services
    from wallets.models import Wallet

    players = make_players(PLAYERS, Decimal("10000000.00"), "path")
    raw_players = make_players(PLAYERS, Decimal("10000000.00"), "pathraw")
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=[p for p, _ in players])}
    round_ = open_round("Confirm path", 3600)
    limits = limits_of(round_)
    small = rack(limits)[:2]
    rng = random.Random(7)
    path = f"/api/rounds/{round_.pk}/bets/"
    view = BetPlaceApi.as_view()
    answered: list[float] = []

    def environ(token: str) -> dict[str, Any]:
        body = confirm_body(rng, limits, small)
        return {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1:8000",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_AUTHORIZATION": f"Token {token}",
            "HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4()),
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
        }

    def request(i: int) -> None:
        status: list[str] = []
        started = time.perf_counter()
        response = application(environ(players[i % PLAYERS][1]), lambda s, headers, exc=None: status.append(s))
        b"".join(response)
        answered.append((time.perf_counter() - started) * 1000)
        response.close()  # as the WSGI server does once the body is sent: the work left for after it runs now
        if not status[0].startswith("201"):
            raise SystemExit(f"the confirm was refused: {status[0]}")

    def drf_view(i: int) -> None:
        from django.core.handlers.wsgi import WSGIRequest

        view(WSGIRequest(environ(players[i % PLAYERS][1])), round_id=round_.pk).render()

    def service(i: int) -> None:
        body = json.loads(confirm_body(rng, limits, small))
        user = users[players[i % PLAYERS][0]]
        key = str(uuid.uuid4())
        bet_place(user=user, round_id=round_.pk, mode=body["mode"], bets=body["bets"], idempotency_key=key)

    broadcast = events.bets_changed

    def money_path(i: int) -> None:
        events.bets_changed = lambda **kwargs: None
        try:
            service(i)
        finally:
            events.bets_changed = broadcast

    house_id = wallet_services.house_wallet().pk
    wallets = dict(Wallet.objects.filter(user_id__in=[u for u, _ in raw_players]).values_list("user_id", "id"))
    raw_conn = psycopg.connect(bench_url)

    def raw(i: int) -> None:
        user_id = raw_players[i % PLAYERS][0]
        p: dict[str, Any] = {"round": round_.pk, "user": user_id, "wallet": wallets[user_id], "house": house_id}
        with raw_conn.transaction():
            raw_conn.execute(RAW_BET[0], p)
            balance = raw_conn.execute(RAW_BET[1], p).fetchone()[0]
            p["after"] = balance - Decimal("3.00")
            p["txn"] = raw_conn.execute(RAW_BET[2], p).fetchone()[0]
            raw_conn.execute(RAW_BET[3], p)
            raw_conn.execute(RAW_BET[4], p)
            p["key"] = uuid.uuid4().hex
            p["placement"] = raw_conn.execute(RAW_BET[5], p).fetchone()[0]
            raw_conn.execute(RAW_BET[6], p)

    layers: dict[str, Callable[[int], None]] = {
        "request (WSGI, middleware, DRF)": request,
        "view (DRF, no middleware)": drf_view,
        "bet_place": service,
        "bet_place, no broadcast": money_path,
        "raw psycopg transaction": raw,
    }
    for i in range(200):  # warm-up: code paths, prepared statements, connections
        for layer in layers.values():
            layer(i)
    answered.clear()
    walls: dict[str, list[float]] = {name: [] for name in layers}
    cpus: dict[str, list[float]] = {name: [] for name in layers}
    for _ in range(batches):
        for name, layer in layers.items():
            cpu, wall = time.process_time(), time.perf_counter()
            for i in range(BATCH):
                layer(i)
            walls[name].append((time.perf_counter() - wall) * 1000 / BATCH)
            cpus[name].append((time.process_time() - cpu) * 1000 / BATCH)

    print(f"one confirm (3 chip-stack bets) at a time, {batches * BATCH} per layer, medians of {BATCH}-confirm batches")
    print(f"    {'':34} {'wall ms':>8} {'CPU ms':>8}")
    for name in layers:
        print(f"    {name:34} {statistics.median(walls[name]):8.3f} {statistics.median(cpus[name]):8.3f}")
    ordered = sorted(answered)
    print(
        f"    the request's response, to its last byte: p50 {statistics.median(ordered):.3f} ms,"
        f" p99 {ordered[int(0.99 * len(ordered))]:.3f} ms (its close() after that runs the work left for later)"
    )
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    request_, view_, service_, money_, raw_ = (cpu[name] for name in layers)
    print(
        f"    CPU by layer: middleware {request_ - view_:.3f}, DRF (token check, throttle, serializers, rendering)"
        f" {view_ - service_:.3f}, the bets.totals broadcast {service_ - money_:.3f}, the money path {money_:.3f} ms"
        f" (raw psycopg: {raw_:.3f} ms)"
    )
    count(request, raw, batches * BATCH, profile, sort)
    raw_conn.close()
    return 0


def count(
    request: Callable[[int], None], raw: Callable[[int], None], confirms: int, profile: int, sort: str = "tottime"
) -> None:
    """Round trips and Python function calls per confirm, from cProfile's call counts."""
    for name, layer in (("request", request), ("raw psycopg", raw)):
        profiler = cProfile.Profile()
        profiler.enable()
        for i in range(confirms):
            layer(i)
        profiler.disable()
        stats = pstats.Stats(profiler)
        table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]

        def calls(match: Callable[[str, str], bool], table: dict[Any, Any] = table) -> float:
            return sum(v[1] for (file, _line, function), v in table.items() if match(file, function)) / confirms

        postgres = calls(lambda f, fn: f.endswith(os.path.join("psycopg", "connection.py")) and fn == "wait")
        redis = calls(
            lambda f, fn: (
                f.endswith(os.path.join("redis", "client.py"))
                and fn in ("_send_command_parse_response", "_execute_pipeline")
            )
        )
        total = sum(v[1] for v in table.values()) / confirms
        print(
            f"    {name}: {postgres:.0f} PostgreSQL round trips, {redis:.0f} Redis round trips,"
            f" {total:,.0f} Python function calls per confirm"
        )
        if profile and name == "request":
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(profile)
            print(out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
