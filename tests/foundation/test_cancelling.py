"""baccarat_site.cancelling: a task that loses a cancellation (as 3.11's wait_for inside redis-py can make it) is
cancelled again until it ends; a plain task ends at the first."""

from __future__ import annotations

import asyncio
import time

import pytest

from baccarat_site.cancelling import cancel_until_done, cancelled_and_ended


async def _refreshing_for_ever(lost: list[float]) -> None:
    """A loop like a presence refresh, whose first cancellation is lost in a send."""
    while True:
        try:
            await asyncio.sleep(0.01)  # the send
        except asyncio.CancelledError:
            if lost:
                raise
            lost.append(time.monotonic())
        await asyncio.sleep(0.05)  # until the next refresh


@pytest.mark.parametrize("losing", [True, False], ids=["a cancellation lost", "none lost"])
def test_a_task_cancelled_until_done_ends_even_when_a_cancellation_is_lost(losing):
    async def scenario() -> tuple[bool, int]:
        lost: list[float] = [] if losing else [0.0]  # an entry already there: the next cancellation is not lost
        task = asyncio.ensure_future(_refreshing_for_ever(lost))
        await asyncio.sleep(0.005)  # in the send
        cancel_until_done(task, retry_seconds=0.1)
        await asyncio.wait([task], timeout=2)
        return task.cancelled(), len(lost)

    assert asyncio.run(scenario()) == (True, 1)


def test_cancelled_and_ended_returns_once_the_task_has_ended():
    async def scenario() -> tuple[bool, bool, bool]:
        lost: list[float] = []
        task = asyncio.ensure_future(_refreshing_for_ever(lost))
        await asyncio.sleep(0.005)
        await cancelled_and_ended(task)  # how long it takes is no part of the test (pytest's timeout bounds it)
        return task.done(), task.cancelled(), bool(lost)

    # Returned with the task ended, cancelled, although its first cancellation was lost.
    assert asyncio.run(scenario()) == (True, True, True)


def test_a_plain_cancel_leaves_a_task_that_lost_it_running():
    """What the helpers are for: without them the loop outlives its cancellation."""

    async def scenario() -> bool:
        task = asyncio.ensure_future(_refreshing_for_ever([]))
        await asyncio.sleep(0.005)
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
        running = not task.done()
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
        return running

    assert asyncio.run(scenario())
