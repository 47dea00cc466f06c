"""The channel layer: channels_redis's, with a ``receive`` that stops when it is cancelled.

When a socket closes, Channels cancels the consumer's pending ``receive`` and waits for it. On Python 3.11 the
cancellation can be lost: redis-py sends every command under ``asyncio.wait_for`` (the layer's connections have a
socket timeout), and 3.11's ``wait_for`` returns the result instead of raising when it is cancelled just as the
send finishes (CPython gh-86296, fixed in 3.12). The receive then carries on with its next blocking pop, a new one
every 5 s, and the consumer with it, until daphne kills the application 10 s after the disconnect ("took too long
to shut down and was killed"), holding the process's receive lock all that time. The browser suite's casino logged
that about once per test module.

:class:`RedisChannelLayer` runs channels_redis's receive in a task of its own and, when cancelled, cancels that
task again until it has ended (a second cancellation cannot land in the same instant).
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels_redis import core

#: How long a cancelled receive waits before cancelling its inner receive again.
RECANCEL_SECONDS = 0.05


class RedisChannelLayer(core.RedisChannelLayer):
    async def receive(self, channel: str) -> dict[str, Any]:
        receiving = asyncio.ensure_future(super().receive(channel))
        try:
            return await asyncio.shield(receiving)
        except asyncio.CancelledError:
            while not receiving.done():
                receiving.cancel()
                await asyncio.wait([receiving], timeout=RECANCEL_SECONDS)
            raise
