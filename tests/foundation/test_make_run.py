"""`make run` (baccarat_site.run) from nothing: embedded servers, migrate, demo data, three processes, "ready" only
once the page answers, Ctrl-C; and `make run` installs the runtime requirements only, never the dev ones."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
import websockets

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


async def _ws_snapshot(url: str) -> dict:
    async with websockets.connect(url, origin=url.replace("ws://", "http://").split("/ws/")[0]) as ws:
        await ws.send(json.dumps({"type": "ping"}))
        return json.loads(await ws.recv())


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_run_serves_pages_api_and_websocket_then_ctrl_c_stops_everything(tmp_path, embedded_home):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(BACCARAT_VAR_DIR=str(embedded_home / "var"), PYTHONUNBUFFERED="1")
    log = open(tmp_path / "run.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "baccarat_site.run", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        # Wait for the launcher to say it is ready, not for the page: the page must answer the moment it says so.
        # (A fresh database is migrated first, and "ready" waits for the worker and beat too: minutes on a busy box.)
        deadline = time.monotonic() + 240
        while "casino ready" not in (tmp_path / "run.log").read_text():
            assert proc.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "run.log").read_text()
            time.sleep(0.05)
        try:
            status, _ = _get(base + "/")
        except OSError as error:
            pytest.fail(f"it said ready before the page answered: {error}")
        assert status == 200
        [ready] = [line for line in (tmp_path / "run.log").read_text().splitlines() if "casino ready" in line]
        assert ready.endswith(f" at {base}/"), ready
        assert _get(base + "/admin/login/")[0] == 200
        status, schema = _get(base + "/api/schema/")
        assert status == 200
        assert b"openapi" in schema
        status, body = _get(base + "/")
        assert b"Baccarat 1" in body
        assert b"Mini Baccarat 1" in body

        frame = asyncio.run(_ws_snapshot(f"ws://127.0.0.1:{port}/ws/tables/1/"))
        assert frame["type"] in {"snapshot", "pong"}

        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 3  # daphne, worker (+ its pool), beat
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=40)
        finally:
            log.close()
    output = (tmp_path / "run.log").read_text()
    assert proc.returncode == 0, output
    assert "casino ready" in output
    assert "bye" in output
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    # It started the embedded servers, so it stopped them too.
    assert not (embedded_home / "var" / "pg" / "postmaster.pid").exists()
    assert not (embedded_home / "var" / "redis.sock").exists()


def _make_dry_run(target: str, venv: Path) -> list[str]:
    """The commands ``make <target>`` would run on a machine with no virtualenv yet (``make -n``: nothing runs)."""
    make = shutil.which("make")
    assert make, "make is needed"
    # As on a fresh shell: not the variables of a make this test runs under (CI's `make test-fast TEST_WORKERS=2`
    # passes TEST_WORKERS down through MAKEFLAGS and the environment).
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "TEST_WORKERS"}}
    result = subprocess.run(
        [make, "-n", "--no-print-directory", target, f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return result.stdout.splitlines()


def test_make_run_installs_only_the_runtime_requirements_and_the_checks_install_the_dev_ones(tmp_path):
    venv = tmp_path / ".venv"  # fresh: no stamp, so every install step shows
    for target in ("run", "services-stop"):
        lines = _make_dry_run(target, venv)
        installs = [line for line in lines if "pip install" in line]
        assert installs, lines
        assert all(line.endswith("-r requirements.txt") for line in installs), (target, installs)
        assert not [line for line in lines if "requirements-dev" in line], (target, lines)
    assert _make_dry_run("run", venv)[-1].endswith("-m baccarat_site.run --host 127.0.0.1 --port 8000")

    for target in ("test", "test-fast", "lint", "install"):
        installs = [line for line in _make_dry_run(target, venv) if "pip install" in line]
        assert installs, target
        assert installs[-1].endswith("-r requirements-dev.txt"), (target, installs)
    # The tests use the machine's cores by default (pytest-xdist's -n auto, when it is installed); the whole suite
    # keeps a file on one worker; test-serial is one process.
    fast = _make_dry_run("test-fast", venv)[-1]
    assert '-p tests.parallel -n auto") -m "not slow and not browser"' in fast, fast
    whole = _make_dry_run("test", venv)[-1]
    assert '-p tests.parallel -n auto --dist loadfile")' in whole, whole
    assert "-n " not in _make_dry_run("test-serial", venv)[-1]


#: What `make run` says last on a start with the demo data: nothing may follow it until Ctrl-C.
READY_BLOCK = ("casino ready in ", "players: demo1 / demo2 / demo3", "staff at /admin/: ", "Ctrl-C stops everything")


def _requeued_at_stop(line: str, output: str) -> bool:
    """Kombu's warning for a message that reached the worker just as Ctrl-C cancelled its consumer. Kombu puts the
    message back on its queue (``basic_reject(requeue=True)``), so nothing is lost; it is only allowed after
    "stopping…"."""
    stop = output.find("[   run] stopping…")
    return (
        stop >= 0
        and output.find(line, stop) >= 0
        and "Requeuing undeliverable message for queue 'celery': No consumers." in line
    )


def quiet_start_problems(output: str) -> list[str]:
    """What is wrong with the output of a clean `make run` and its Ctrl-C: a warning, an error or a traceback anywhere,
    a component that did not log its start before "ready", or anything between the ready block and the Ctrl-C
    (Celery's ticks)."""
    problems = [
        f"a warning or an error: {line}"
        for line in output.splitlines()
        if any(word in line.lower() for word in ("warn", "error", "traceback")) and not _requeued_at_stop(line, output)
    ]
    lines = [line for line in output.split("[   run] stopping…")[0].splitlines() if line.strip()]
    tail = [line.removeprefix("[   run] ") for line in lines[-len(READY_BLOCK) :]]
    if [line[: len(start)] for line, start in zip(tail, READY_BLOCK, strict=False)] != list(READY_BLOCK):
        problems.append(f"the last lines are not the ready block: {lines[-8:]}")
    ready_at = next((i for i, line in enumerate(lines) if "casino ready in " in line), len(lines))
    for prefix, started in (("[worker]", " ready."), ("[  beat]", "beat: Starting...")):
        if not any(line.startswith(prefix) and started in line for line in lines[:ready_at]):
            problems.append(f"{prefix} did not log its start before the ready line")
    return problems


def test_the_quiet_start_check_flags_errors_at_the_stop_and_allows_only_kombus_requeue_after_it():
    started = [
        "[worker] [2026-11-27 15:28:36,518: INFO/MainProcess] worker-1@vm ready.",
        "[  beat] [2026-11-27 15:28:35,125: INFO/MainProcess] beat: Starting...",
        *(f"[   run] {line}" for line in READY_BLOCK),
        "[   run] stopping…",
    ]
    requeued = "[worker] [x: WARNING/MainProcess] Requeuing undeliverable message for queue 'celery': No consumers."
    lost = "[worker] [x: ERROR/MainProcess] Process 'ForkPoolWorker-1' pid:5313 exited with 'signal 15 (SIGTERM)'"
    assert quiet_start_problems("\n".join([*started, requeued, "[   run] bye"])) == []
    assert quiet_start_problems("\n".join([*started, lost, "[   run] bye"])) == [f"a warning or an error: {lost}"]
    before = quiet_start_problems("\n".join([requeued, *started]))
    assert before == [f"a warning or an error: {requeued}"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_clean_start_logs_each_component_once_then_ends_with_ready_and_the_logins(tmp_path, embedded_home):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "LOG_LEVEL", "LOG_TICKS"}}
    env.update(BACCARAT_VAR_DIR=str(embedded_home / "var"), PYTHONUNBUFFERED="1")
    log_path = tmp_path / "run.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "baccarat_site.run", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 240
            while READY_BLOCK[-1] not in log_path.read_text():
                assert proc.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
            time.sleep(6)  # a dozen ticks of beat and the worker
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    output = log_path.read_text()
    assert proc.returncode == 0, output
    assert quiet_start_problems(output) == [], output
