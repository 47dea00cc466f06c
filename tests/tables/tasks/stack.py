"""Real processes for the live-loop tests: daphne, a Celery worker and Celery beat on loopback ports.

Every child uses the test database, this test's channel-layer prefix and its own Celery queue, so
several suites sharing one PostgreSQL and one Redis never see each other's work. Children run in
their own process group; ``kill`` takes the whole group (a prefork worker's children included).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import redis
from django.conf import settings

from tests.processes import (
    ROOT,
    celery_beat_command,
    celery_worker_command,
    daphne_command,
    free_port,
    process_env,
)


class Stack:
    """Starts and stops the processes of one test; use as a context manager."""

    def __init__(self, tmp_path: Path, *, tick: float = 0.2) -> None:
        self.tmp_path = tmp_path
        self.queue = f"test-{uuid.uuid4().hex[:12]}"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}
        self.ports: dict[str, int] = {}
        self.env = process_env(CELERY_QUEUE=self.queue, TICK_SECONDS=str(tick), LOG_LEVEL="INFO")

    def _start(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        log = self.tmp_path / f"{name}.log"
        self.logs[name] = log
        handle = log.open("ab")
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        handle.close()
        self.procs[name] = proc
        return proc

    def daphne(self, name: str = "web") -> int:
        port = free_port()
        self.ports[name] = port
        self._start(name, daphne_command(port))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return port
            self._check_alive(name)
            time.sleep(0.1)
        raise RuntimeError(f"daphne {name} did not listen on {port}:\n{self.log(name)}")

    def worker(self, name: str = "worker", concurrency: int = 2) -> subprocess.Popen[bytes]:
        return self._start(name, celery_worker_command(f"{name}-{self.queue}", concurrency=concurrency))

    def beat(self, name: str = "beat") -> subprocess.Popen[bytes]:
        return self._start(name, celery_beat_command(self.tmp_path / f"celerybeat-schedule-{name}"))

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)

    def log(self, name: str) -> str:
        path = self.logs.get(name)
        return path.read_text(errors="replace")[-6000:] if path and path.exists() else ""

    def logs_text(self) -> str:
        return "\n".join(f"── {name} ──\n{self.log(name)}" for name in self.logs)

    def _check_alive(self, name: str) -> None:
        proc = self.procs.get(name)
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{self.log(name)}")

    def close(self) -> None:
        for name in list(self.procs):
            proc = self.procs[name]
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 8
        for name in list(self.procs):
            proc = self.procs.pop(name)
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        self._purge_queue()

    def _purge_queue(self) -> None:
        with contextlib.suppress(Exception):
            client = redis.Redis.from_url(settings.REDIS_URL)
            client.delete(self.queue, *client.keys(f"_kombu.binding.{self.queue}*"))

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_for(predicate, *, timeout: float, interval: float = 0.05, stack: Stack | None = None, what: str = ""):
    """Poll ``predicate`` until it returns something truthy; fail with the process logs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    logs = stack.logs_text() if stack is not None else ""
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}\n{logs}")
