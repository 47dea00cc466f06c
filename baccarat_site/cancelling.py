"""Cancelling a task so that it ends, on Python 3.11.

redis-py sends every command under ``asyncio.wait_for`` when its connection has a socket timeout (all of ours do),
and 3.11's ``wait_for`` returns the send's result instead of raising when a cancellation meets the send's end
(CPython gh-86296, fixed in 3.12). A task cancelled at that instant carries on: a loop that refreshes something in
Redis then runs for ever (a player counted at a table long after the socket closed, a hub still reading its group).
One cancellation is lost at most per send, so cancelling again ends the task.
"""

from __future__ import annotations

import asyncio
from typing import Any

#: How long a cancelled task is given before it is cancelled again.
RETRY_SECONDS = 0.5


def cancel_until_done(task: asyncio.Future[Any], retry_seconds: float = RETRY_SECONDS) -> None:
    """Cancel ``task`` now, and again every ``retry_seconds`` until it has ended. Returns at once."""
    if task.done():
        return
    task.cancel()
    task.get_loop().call_later(retry_seconds, cancel_until_done, task, retry_seconds)


async def cancelled_and_ended(task: asyncio.Future[Any], retry_seconds: float = RETRY_SECONDS / 10) -> None:
    """Cancel ``task`` until it has ended, and return once it has."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=retry_seconds)
