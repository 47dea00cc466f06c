"""The async Redis clients (presence, socket caps) under a connect storm: commands past the pool wait for a
connection instead of failing."""

from __future__ import annotations

import asyncio
import uuid

from baccarat_site.redis_client import ASYNC_POOL_SIZE, async_redis_client


def test_commands_past_the_pool_wait_for_a_connection_instead_of_failing():
    # Each BLPOP holds its connection for 0.2 s: half again as many as the pool has must queue, none may fail
    # (redis-py's default pool raised "Too many connections" for the 101st).
    many = ASYNC_POOL_SIZE + ASYNC_POOL_SIZE // 2
    prefix = f"test-pool-{uuid.uuid4().hex[:8]}"

    async def storm() -> list[object]:
        client = async_redis_client(socket_timeout=5)
        try:
            return await asyncio.gather(
                *(client.blpop([f"{prefix}:{i}"], timeout=0.2) for i in range(many)), return_exceptions=True
            )
        finally:
            await client.aclose()

    results = asyncio.run(storm())
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert results == [None] * many
