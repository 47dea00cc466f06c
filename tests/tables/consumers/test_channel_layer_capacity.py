"""The channel layer's settings against the load of one busy table (messages must never be silently dropped)."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

PLAYERS_ON_ONE_PROCESS = 3000


@pytest.mark.slow
async def test_a_settlement_burst_to_thousands_of_players_on_one_process_is_delivered_whole():
    # All of one process's sockets share one Redis key in channels_redis, and its capacity applies per key:
    # a settlement sends one personal message per player, all at once (tables.services.bets sends them
    # concurrently). With the old capacity of 1,000 most of this burst would be dropped without a word.
    layer = get_channel_layer()
    channels = [await layer.new_channel() for _ in range(PLAYERS_ON_ONE_PROCESS)]
    gate = asyncio.Semaphore(64)

    async def join(index: int, channel: str) -> None:
        async with gate:
            await layer.group_add(f"user_{index}", channel)

    async def settle(index: int) -> None:
        async with gate:
            await layer.group_send(f"user_{index}", {"type": "round.settled", "player": index})

    await asyncio.gather(*(join(i, c) for i, c in enumerate(channels)))
    await asyncio.gather(*(settle(i) for i in range(PLAYERS_ON_ONE_PROCESS)))

    received = [await asyncio.wait_for(layer.receive(channel), 5) for channel in channels]
    assert [m["player"] for m in received] == list(range(PLAYERS_ON_ONE_PROCESS))
    await layer.flush()  # this test's prefix only (tests/conftest.py gives each test its own)
