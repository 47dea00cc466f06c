"""The bet record read from a real streaming replica, and from the primary when the replica lags or is gone.

A throwaway PostgreSQL primary (``wal_level = replica``) and a standby made from it with ``pg_basebackup -R``,
both from the PostgreSQL binaries pgserver ships, on free loopback ports; the casino migrated onto the primary
and run in a child process (tests/foundation/replica_driver.py) with ``DATABASE_URL`` on the primary and
``DATABASE_REPLICA_URL`` on the standby, ``REPLICA_MAX_LAG_SECONDS=1``. The standby logs every statement, so
the reads it served are seen on the server itself, not only in Django's query log.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from baccarat_site import embedded
from tests import processes

pytestmark = pytest.mark.slow

MAX_LAG = 1.0
PG_USER = "pgserver"  # PostgreSQL refuses to run as root: as root, run it as pgserver's own user


def pg_bin() -> Path:
    embedded._import_pgserver()
    from pgserver._commands import POSTGRES_BIN_PATH  # type: ignore[attr-defined]

    return Path(POSTGRES_BIN_PATH)


def as_server_user() -> list[str]:
    return ["setpriv", f"--reuid={PG_USER}", f"--regid={PG_USER}", "--init-groups"] if os.geteuid() == 0 else []


def wait_until(check: Callable[[], Any], what: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(psycopg.OperationalError):  # not accepting connections yet
            if found := check():
                return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)


def query(port: int, sql: str, *params: object, db: str = "casino") -> Any:
    with psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname=db, autocommit=True) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else None


@dataclass
class Pair:
    home: Path
    primary: int
    standby: int
    standby_proc: subprocess.Popen[bytes]

    def url(self, port: int) -> str:
        return f"postgresql://postgres@127.0.0.1:{port}/casino"

    @property
    def standby_log(self) -> Path:
        return self.home / "standby.log"


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    """Primary and standby running, the casino migrated onto the primary; both stopped (and their files removed)
    whatever happens."""
    home = Path(tempfile.mkdtemp(prefix="baccarat-replica-"))
    bin_, user = pg_bin(), as_server_user()
    if user:
        shutil.chown(home, PG_USER, PG_USER)
    primary_dir, standby_dir = home / "primary", home / "standby"
    ports = processes.free_port(), processes.free_port()

    def server(data: Path, port: int, *settings: str) -> list[str]:
        every = ("listen_addresses=127.0.0.1", f"unix_socket_directories={home}", *settings)
        return [*user, str(bin_ / "postgres"), "-D", str(data), "-p", str(port), *(f"-c{s}" for s in every)]

    def tool(name: str, *args: str) -> None:
        subprocess.run(
            [*user, str(bin_ / name), *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )

    try:
        with contextlib.ExitStack() as stack:
            tool("initdb", "-D", str(primary_dir), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
            with (primary_dir / "pg_hba.conf").open("a") as hba:
                hba.write("host replication all 127.0.0.1/32 trust\n")
            settings = server(primary_dir, ports[0], "wal_level=replica", "max_wal_senders=4", "fsync=off")
            primary = stack.enter_context(processes.running("primary", settings, dict(os.environ), home))
            wait_until(lambda: query(ports[0], "SELECT 1", db="postgres"), "the primary accepting connections")
            backup = ("-h", "127.0.0.1", "-p", str(ports[0]), "-U", "postgres", "-D", str(standby_dir))
            tool("pg_basebackup", *backup, "-R", "-X", "stream", "-c", "fast", "--no-sync")
            settings = server(standby_dir, ports[1], "log_statement=all")
            standby = stack.enter_context(processes.running("standby", settings, dict(os.environ), home))
            wait_until(lambda: query(ports[1], "SELECT pg_is_in_recovery()", db="postgres")[0][0], "the standby up")
            query(ports[0], "CREATE DATABASE casino", db="postgres")
            env = processes.process_env(DATABASE_URL=f"postgresql://postgres@127.0.0.1:{ports[0]}/casino")
            subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=processes.ROOT, env=env, check=True)
            assert primary.poll() is None
            yield Pair(home, ports[0], ports[1], standby)
    finally:
        shutil.rmtree(home, ignore_errors=True)


class Driver:
    """The casino in a child process (replica_driver.py), one command a line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    def __call__(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the driver exited ({self.proc.poll()})"
        answer = json.loads(line)
        assert "error" not in answer, answer
        return answer


@pytest.fixture
def casino(pair: Pair) -> Iterator[Driver]:
    env = processes.process_env(
        DATABASE_URL=pair.url(pair.primary),
        DATABASE_REPLICA_URL=pair.url(pair.standby),
        REPLICA_MAX_LAG_SECONDS=str(MAX_LAG),
    )
    command = [sys.executable, "-m", "tests.foundation.replica_driver"]
    with open(pair.home / "driver.log", "wb") as log:
        proc = subprocess.Popen(
            command, cwd=processes.ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
        )
        try:
            yield Driver(proc)
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            processes.stop(proc)  # type: ignore[arg-type]


def replayed(pair: Pair, round_id: int) -> bool:
    """The round is settled on the standby."""
    return bool(query(pair.standby, "SELECT 1 FROM tables_round WHERE id = %s AND state = 'settled'", round_id))


def test_the_bet_record_reads_the_replica_and_falls_back_to_the_primary_when_it_lags_or_is_gone(pair, casino):
    casino("setup")
    first = casino("settle")
    assert first["status"] in {"won", "lost", "push"}
    wait_until(lambda: replayed(pair, first["round"]), "the settled bet replayed on the standby")
    time.sleep(1.05)  # past the guard's one check a second, so it asks again

    # Caught up: the page and the CSV come from the replica and show the settled bet.
    fresh = casino("record")
    assert fresh["status"] == 200
    assert fresh["fresh"] is True
    assert fresh["lag"] <= MAX_LAG
    assert fresh["rounds_on_page"] == [first["round"]]
    assert fresh["csv"] == [{"round": first["number"], "result": first["status"]}]
    assert fresh["tables_reads"]["replica"] > 0
    assert fresh["tables_reads"]["default"] == 0
    assert fresh["auth_reads"]["replica"] == 0  # the session and the signed-in user are the primary's
    assert fresh["auth_reads"]["default"] > 0
    assert '"tables_bet"' in pair.standby_log.read_text(errors="replace")
    for path, page in casino("pages").items():  # the lobby and the reports, marked too
        assert page["status"] == 200, path
        assert page["reads"]["replica"] > 0, path
        assert page["reads"]["default"] == 0, path
        assert page["balance_reads"]["replica"] == 0, path

    # Replay paused, a second round settled on the primary: past the allowed lag the page reads the primary.
    query(pair.standby, "SELECT pg_wal_replay_pause()")
    second = casino("settle")
    time.sleep(MAX_LAG + 1.05)
    assert not replayed(pair, second["round"])
    lagging = casino("record")
    assert lagging["fresh"] is False
    assert lagging["lag"] > MAX_LAG
    assert lagging["tables_reads"]["replica"] == 0
    assert lagging["tables_reads"]["default"] > 0
    assert lagging["rounds_on_page"] == sorted([first["round"], second["round"]])
    assert {"round": second["number"], "result": second["status"]} in lagging["csv"]

    # Replay resumed: back to the replica once it has caught up.
    query(pair.standby, "SELECT pg_wal_replay_resume()")
    wait_until(lambda: replayed(pair, second["round"]), "replay resumed")
    time.sleep(1.05)
    again = casino("record")
    assert again["fresh"] is True
    assert again["tables_reads"]["replica"] > 0
    assert again["rounds_on_page"] == lagging["rounds_on_page"]

    # The standby's machine gone (every process of it killed at once): the next check cannot connect and the
    # page is served from the primary.
    os.killpg(pair.standby_proc.pid, signal.SIGKILL)
    pair.standby_proc.wait()
    time.sleep(1.05)
    gone = casino("record")
    assert gone["status"] == 200
    assert gone["fresh"] is False
    assert gone["lag"] is None
    assert gone["tables_reads"]["default"] > 0
    assert gone["rounds_on_page"] == lagging["rounds_on_page"]
