"""`make run` (baccarat_site.run) from nothing: embedded servers, migrate, demo data, three processes, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

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
    import websockets

    async with websockets.connect(url, origin=url.replace("ws://", "http://").split("/ws/")[0]) as ws:
        await ws.send(json.dumps({"type": "ping"}))
        return json.loads(await ws.recv())


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_run_serves_pages_api_and_websocket_then_ctrl_c_stops_everything(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(BACCARAT_VAR_DIR=str(tmp_path / "var"), PYTHONUNBUFFERED="1")
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
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (tmp_path / "run.log").read_text()
            try:
                status, _ = _get(base + "/")
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "run.log").read_text()
            time.sleep(0.5)
        assert _get(base + "/admin/login/")[0] == 200
        status, schema = _get(base + "/api/schema/")
        assert status == 200
        assert b"openapi" in schema
        status, body = _get(base + "/")
        assert b"Baccarat 1" in body
        assert b"Mini Baccarat 1" in body

        import asyncio

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
    assert not (tmp_path / "var" / "pg" / "postmaster.pid").exists()
    assert not (tmp_path / "var" / "redis.sock").exists()
