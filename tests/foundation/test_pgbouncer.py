"""PostgreSQL behind PgBouncer in transaction mode (docs/deployment.md, "PgBouncer in front of PostgreSQL").

A real PgBouncer (Debian's ``pgbouncer``) in front of the PostgreSQL this run uses, with ``pool_mode =
transaction``, and the suite's money and round tests run through it in a child pytest with
``DB_TRANSACTION_POOLING=on`` (prepared statements off, no server-side cursors, the runner lock a transaction's).
Everything goes through PgBouncer, pytest-django's CREATE and DROP DATABASE of its test database included: the
``*`` entry sends any database name on to the server, and ``server_idle_timeout = 1`` closes the pool's idle
connections to the test database while DROP DATABASE waits (up to 5 s) for them to go.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings

from tests import processes

ROOT = Path(__file__).resolve().parents[2]
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"

# Money moving (the ledger, four eyes, once per key), bets placed and settled, rounds through every state, the
# runner lock, and parallel confirms and settlements on many connections at once. The 8-deck shoe (40 s of
# dealing) is left out; its steps are the same as a round's.
MONEY_AND_ROUNDS = [
    "tests/wallets/test_wallet_services.py",
    "tests/wallets/test_money_once_and_four_eyes.py",
    "tests/tables/services/test_bets_place.py",
    "tests/tables/services/test_bets_settle.py",
    "tests/tables/services/test_rounds.py",
    "tests/tables/services/test_runner_lock.py",
    "tests/tables/services/test_bets_concurrency.py::"
    "test_a_hundred_parallel_confirms_from_a_player_who_can_afford_ten_succeed_exactly_ten_times",
    "tests/tables/services/test_bets_concurrency.py::test_concurrent_and_repeated_settlement_pays_exactly_once",
    "tests/tables/services/test_bets_concurrency.py::test_settle_and_cancel_racing_each_other_move_the_money_once",
]
PASSED_AT_LEAST = 140  # 146 when written: fewer means files or tests went missing from the list
LEFT_OUT = "test_a_whole_8_deck_shoe_is_played_to_the_cut_card_then_reshuffled_with_a_new_commitment_and_burn"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server() -> dict[str, str]:
    """Where this run's PostgreSQL answers, and as whom (a socket directory for the embedded server)."""
    db = settings.DATABASES["default"]
    return {
        "host": db["HOST"] or "/var/run/postgresql",
        "port": str(db["PORT"] or 5432),
        "user": db["USER"] or pwd.getpwuid(os.getuid()).pw_name,
        "password": db["PASSWORD"] or "",
    }


def run_as(host: str) -> list[str]:
    """PgBouncer refuses to run as root: as root, hand it to the owner of the server's socket directory (who can
    open the socket), or to nobody for a server on TCP."""
    if os.geteuid() != 0:
        return []
    owner = pwd.getpwuid(os.stat(host).st_uid).pw_name if host.startswith("/") else "root"
    return ["-u", owner if owner != "root" else "nobody"]


def pgbouncer_ini(home: Path, port: int, pg: dict[str, str]) -> Path:
    target = f"host='{pg['host']}' port={pg['port']} user='{pg['user']}'"
    if pg["password"]:
        target += f" password='{pg['password']}'"
    (home / "users.txt").write_text(f'"{pg["user"]}" ""\n')
    ini = home / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n"
        f"* = {target}\n"
        "[pgbouncer]\n"
        "listen_addr = 127.0.0.1\n"
        f"listen_port = {port}\n"
        "unix_socket_dir =\n"
        "pool_mode = transaction\n"
        "auth_type = trust\n"
        f"auth_file = {home / 'users.txt'}\n"
        "default_pool_size = 20\n"
        "max_client_conn = 400\n"
        "server_idle_timeout = 1\n"
        "ignore_startup_parameters = extra_float_digits\n"
    )
    for path in (home, *home.iterdir()):  # readable by the user it runs as
        path.chmod(0o755 if path.is_dir() else 0o644)
    return ini


@contextmanager
def running_pgbouncer() -> Iterator[tuple[int, Path]]:
    """A PgBouncer in transaction mode on a free loopback port; yields the port and its log."""
    if not os.path.exists(PGBOUNCER):
        pytest.fail(f"PgBouncer not found at {PGBOUNCER}: apt-get install pgbouncer (the CI script must)")
    pg = server()
    home = Path(tempfile.mkdtemp(prefix="baccarat-pgbouncer-"))  # not pytest's tmp root: 0700, root's
    port = free_port()
    ini = pgbouncer_ini(home, port, pg)
    try:
        with processes.running("pgbouncer", [PGBOUNCER, *run_as(pg["host"]), str(ini)], dict(os.environ), home) as proc:
            deadline = time.monotonic() + 15
            while True:
                try:
                    psycopg.connect(host="127.0.0.1", port=port, user=pg["user"], dbname="postgres").close()
                    break
                except psycopg.OperationalError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise AssertionError((home / "pgbouncer.log").read_text()) from None
                    time.sleep(0.1)
            yield port, home / "pgbouncer.log"
    finally:
        shutil.rmtree(home, ignore_errors=True)


def outcome(out: str) -> dict[str, int]:
    """pytest's last line, as counts: ``{"passed": 93, "deselected": 1}``."""
    last = out.strip().splitlines()[-1]
    return {word: int(count) for count, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|deselected)", last)}


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_money_and_round_tests_pass_through_pgbouncer_in_transaction_mode():
    pg = server()
    with running_pgbouncer() as (port, log):
        user = quote(pg["user"], safe="")
        env = dict(os.environ)
        env.update(
            DATABASE_URL=f"postgresql://{user}@127.0.0.1:{port}/baccarat",
            DB_TRANSACTION_POOLING="on",
            DB_PREPARE_THRESHOLD="off",
            DB_CONN_MAX_AGE="0",
        )
        env.pop("DB_POOL", None)
        env.pop("TEST_DATABASE_NAME", None)
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        command += [*MONEY_AND_ROUNDS, "--deselect", f"tests/tables/services/test_rounds.py::{LEFT_OUT}"]
        started = time.monotonic()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=200, check=False)
        took = time.monotonic() - started
        out = result.stdout + result.stderr
        bouncer = log.read_text()

    assert result.returncode == 0, out[-6000:]
    counts = outcome(result.stdout)
    assert set(counts) <= {"passed", "deselected"}, (counts, out[-3000:])
    assert counts.get("passed", 0) >= PASSED_AT_LEAST, counts
    # It really went through PgBouncer: the child's test database was created, used and dropped through it.
    test_dbs = set(re.findall(r"\b(test_baccarat_\d+)/", bouncer))
    assert test_dbs, bouncer[-3000:]
    with psycopg.connect(
        host=pg["host"], port=pg["port"], user=pg["user"], password=pg["password"] or None, dbname="postgres"
    ) as direct:
        left = direct.execute("SELECT datname FROM pg_database WHERE datname = ANY(%s)", [sorted(test_dbs)]).fetchall()
    assert left == [], f"not dropped: {left}"
    print(f"{counts} through PgBouncer in {took:.0f} s")
