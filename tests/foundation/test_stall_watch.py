"""daphne's stall watch (baccarat_site.daphne_server.stall_watch): a held event loop or synchronous thread is logged
with the stack that holds it, and again when it answers."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import pytest
from asgiref.sync import sync_to_async

from baccarat_site.daphne_server.stall_watch import StallWatch


def _hold_the_loop() -> None:
    time.sleep(1.5)


def _hold_the_synchronous_thread() -> None:
    time.sleep(1.5)


def _run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        watch = StallWatch(asyncio.get_running_loop(), stall_seconds=0.3, beat_seconds=0.1)
        watch.start()
        try:
            await asyncio.sleep(0.3)  # the watch knows both threads
            await scenario()
            await asyncio.sleep(0.3)  # and sees them answer again
        finally:
            watch.stop()

    asyncio.run(main())


async def _holding_the_loop() -> None:
    _hold_the_loop()


async def _holding_the_synchronous_thread() -> None:
    await sync_to_async(_hold_the_synchronous_thread, thread_sensitive=True)()


@pytest.mark.parametrize(
    ("what", "other", "scenario", "holder"),
    [
        ("event loop", "synchronous thread", _holding_the_loop, "_hold_the_loop"),
        ("synchronous thread", "event loop", _holding_the_synchronous_thread, "_hold_the_synchronous_thread"),
    ],
)
def test_a_held_thread_is_logged_with_its_stack_and_when_it_answers(caplog, what, other, scenario, holder):
    with caplog.at_level(logging.WARNING, logger="baccarat_site.daphne_server.stall_watch"):
        _run(scenario)
    messages = [record.getMessage() for record in caplog.records]
    stalled = [m for m in messages if m.startswith(f"daphne's {what} has not answered")]
    assert len(stalled) == 1, messages
    assert f"in {holder}\n" in stalled[0]
    assert any(m.startswith(f"daphne's {what} answers again after ") for m in messages), messages
    assert not any(other in m for m in messages), messages
