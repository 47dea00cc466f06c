"""The table socket under real daphne (autobahn/Twisted), where a close code the library refuses used to leave
a socket open and deaf: an oversized frame closes it (4009), deep JSON gets an error frame, and a Redis
restart closes anonymous viewers with 4013 so they reconnect, after which they receive events again."""

from __future__ import annotations

import asyncio
import json
import signal
import time

import pytest
import websockets
from channels_redis.core import RedisChannelLayer

from tests import processes
from tests.factories import make_table, make_variant

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


async def next_frame(ws, kind: str, timeout: float = 10) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return frame


async def close_code(ws, timeout: float) -> int | None:
    """Read until the server closes the socket; the code it closed with (None: closed without one).
    A socket the server failed to close times out here instead."""
    async with asyncio.timeout(timeout):
        try:
            while True:
                await ws.recv()
        except websockets.ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


def test_close_codes_and_a_redis_restart_under_real_daphne(tmp_path):
    table = make_table("Under daphne", make_variant("Under daphne rules"))
    redis_port, web_port = processes.free_port(), processes.free_port()
    redis_proc = processes.start_redis(redis_port, tmp_path)
    env = processes.process_env(REDIS_URL=f"redis://127.0.0.1:{redis_port}/0", CHANNELS_PREFIX="daphne-close")
    url = f"ws://127.0.0.1:{web_port}/ws/tables/{table.pk}/"
    origin = f"http://127.0.0.1:{web_port}"
    try:
        with processes.running("daphne", processes.daphne_command(web_port), env, tmp_path) as web:
            processes.wait_for_http(f"http://127.0.0.1:{web_port}/accounts/login/", proc=web)

            async def frames_and_sizes() -> tuple[dict, int | None]:
                async with websockets.connect(url, origin=origin, max_size=None) as ws:
                    await next_frame(ws, "snapshot")
                    await ws.send("[" * 500 + "]" * 500)
                    deep = await next_frame(ws, "error")
                    await ws.send(json.dumps({"type": "ping"}))
                    await next_frame(ws, "pong")  # still served after the deep frame
                    await ws.send(json.dumps({"type": "ping", "pad": "x" * 9000}))
                    too_big = await next_frame(ws, "error")
                    return {"deep": deep, "too_big": too_big}, await close_code(ws, timeout=10)

            frames, code = asyncio.run(frames_and_sizes())
            assert frames["deep"]["code"] == "invalid_json"
            assert frames["too_big"]["code"] == "frame_too_large"
            assert code == 4009

            async def watcher_through_a_restart() -> dict:
                nonlocal redis_proc
                async with websockets.connect(url, origin=origin) as ws:
                    await next_frame(ws, "snapshot")
                    redis_proc.send_signal(signal.SIGKILL)
                    redis_proc.wait()
                    restart_code = await close_code(ws, timeout=30)
                redis_proc = processes.start_redis(redis_port, tmp_path)
                # As the browser does: reconnect (with backoff) until a snapshot comes, then events flow again.
                deadline = time.monotonic() + 30
                while True:
                    try:
                        async with websockets.connect(url, origin=origin) as ws:
                            await next_frame(ws, "snapshot", timeout=5)
                            await asyncio.sleep(0.5)  # the hub has joined the table's group

                            layer = RedisChannelLayer(
                                hosts=[f"redis://127.0.0.1:{redis_port}/0"], prefix="daphne-close"
                            )
                            await layer.group_send(
                                f"table_{table.pk}",
                                {"type": "table.paused", "table_id": table.pk, "reason": "after the restart"},
                            )
                            event = await next_frame(ws, "table.paused", timeout=10)
                            await layer.flush()
                            return {"code": restart_code, "event": event}
                    except (OSError, websockets.InvalidStatus, websockets.ConnectionClosed, TimeoutError):
                        assert time.monotonic() < deadline, "the viewer never got back"
                        await asyncio.sleep(0.5)

            outcome = asyncio.run(watcher_through_a_restart())
            assert outcome["code"] == 4013
            assert outcome["event"]["reason"] == "after the restart"
            log = (tmp_path / "daphne.log").read_text()
            assert "invalid close code" not in log
    finally:
        processes.stop(redis_proc)
