"""The channel layer: channels_redis's, with a ``receive`` that stops when it is cancelled.

When a socket closes, Channels cancels the consumer's pending ``receive`` and waits for it. On Python 3.11 the
cancellation can be lost inside redis-py (:mod:`baccarat_site.cancelling`). The receive then carried on with its
next blocking pop, a new one every 5 s, and the consumer with it, until daphne killed the application 10 s after
the disconnect ("took too long to shut down and was killed"), holding the process's receive lock all that time.
The browser suite's casino logged that about once per test module.

:class:`RedisChannelLayer` runs channels_redis's receive in a task of its own and, when cancelled, cancels that
task until it has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels_redis import core

from baccarat_site.cancelling import cancelled_and_ended


class RedisChannelLayer(core.RedisChannelLayer):
    async def receive(self, channel: str) -> dict[str, Any]:
        receiving = asyncio.ensure_future(super().receive(channel))
        try:
            return await asyncio.shield(receiving)
        except asyncio.CancelledError:
            await cancelled_and_ended(receiving)
            raise
