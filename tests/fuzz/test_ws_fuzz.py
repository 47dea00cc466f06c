"""WebSocket fuzzing under real daphne: random and malformed frames (not JSON, wrong types, huge, deeply nested,
binary, floods) at the table socket. Each gets an ``error`` frame or a clean close with one of our codes,
never a crash or a traceback, and a watcher on the same table keeps receiving all along."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import processes
from tests.factories import make_table, make_variant

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]
OUR_CLOSE_CODES = {1000, 4009, 4429}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
frame_types = st.sampled_from(["ping", "snapshot", "place_bets", "nope", "", "PING"]) | st.text(max_size=20)
frames = st.one_of(
    st.text(max_size=200),  # not JSON, mostly
    json_values.map(json.dumps),  # JSON, but not an object with a type
    st.builds(
        lambda t, extra: json.dumps({"type": t, **extra}),
        frame_types,
        st.dictionaries(st.text(max_size=10), json_values, max_size=4),
    ),
    st.builds(
        lambda round_id, bets, key, mode: json.dumps(
            {"type": "place_bets", "round_id": round_id, "bets": bets, "idempotency_key": key, "mode": mode}
        ),
        json_values,
        json_values,
        json_values,
        json_values,
    ),
    st.integers(min_value=33, max_value=3000).map(lambda depth: "[" * depth + "]" * depth),  # deep
    st.integers(min_value=8_000, max_value=40_000).map(lambda n: json.dumps({"type": "ping", "pad": "x" * n})),  # huge
    st.binary(max_size=64),  # binary frames
)


def test_random_and_malformed_frames_never_crash_the_socket_or_disturb_others(tmp_path):
    table = make_table("Fuzzed", make_variant("Fuzzed rules"))
    with ExitStack() as stack:
        port = processes.free_port()
        web = stack.enter_context(
            processes.running("daphne", processes.daphne_command(port), processes.process_env(), tmp_path)
        )
        processes.wait_for_http(f"http://127.0.0.1:{port}/accounts/login/", proc=web)
        url, origin = f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/", f"http://127.0.0.1:{port}"
        outcomes: dict[str, int] = {"error_frames": 0, "closes": 0, "sent": 0}

        async def fuzz(batch: list[str | bytes]) -> None:
            """Send the batch as fast as possible, read every reply, then check the socket still serves a ping
            (the rate limiter answers a burst with one error frame now and then, not one per frame)."""
            async with websockets.connect(url, origin=origin, max_size=None) as ws:
                await ws.recv()  # snapshot
                try:
                    for frame in batch:
                        await ws.send(frame)
                        outcomes["sent"] += 1
                    while True:
                        reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=1.5))
                        assert reply["type"] in {"error", "pong", "snapshot"}, reply
                        if reply["type"] == "error":
                            assert reply["code"], reply
                            assert reply["detail"], reply
                            outcomes["error_frames"] += 1
                except TimeoutError:  # silence: every reply is in; the socket is still open
                    await asyncio.sleep(2.5)  # the rate limiter's bucket refills
                    await ws.send(json.dumps({"type": "ping"}))
                    async with asyncio.timeout(5):
                        while json.loads(await ws.recv())["type"] != "pong":
                            pass
                except websockets.ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else None
                    assert code in OUR_CLOSE_CODES, f"closed with {code}"
                    outcomes["closes"] += 1

        @given(batch=st.lists(frames, min_size=40, max_size=40))
        @settings(
            max_examples=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,  # the same frames every run: CI stays repeatable
        )
        def run(batch):
            asyncio.run(fuzz(batch))

        async def watcher_hears(n: int) -> bool:
            async with websockets.connect(url, origin=origin) as ws:
                await ws.recv()
                for _ in range(n):
                    await ws.send(json.dumps({"type": "ping"}))
                    assert json.loads(await asyncio.wait_for(ws.recv(), timeout=5))["type"] == "pong"
            return True

        run()

        # A flood: far more frames than the rate allows, then a clean close.
        async def flood() -> int | None:
            async with websockets.connect(url, origin=origin) as ws:
                await ws.recv()
                try:
                    for _ in range(500):
                        await ws.send(json.dumps({"type": "ping"}))
                    while True:
                        await asyncio.wait_for(ws.recv(), timeout=5)
                except websockets.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None
            return None

        assert asyncio.run(flood()) == 4429
        assert asyncio.run(watcher_hears(5))
        log = (tmp_path / "daphne.log").read_text()
        assert "Traceback" not in log, log[-3000:]
        assert web.poll() is None
        assert outcomes["sent"] >= 200
        assert outcomes["error_frames"] > 20
