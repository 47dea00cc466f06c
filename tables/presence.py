"""Who is at a table now: signed-in users with a WebSocket open on ``ws/tables/<id>/``, kept in Redis.

One sorted set per table, ``<prefix>:tables:presence:<table_id>``: a member per open socket
(``<user_id>:<socket token>``) scored with the moment it stops counting. A socket refreshes its entry every
``REFRESH_SECONDS`` and removes it when it closes; an entry whose server crashed simply expires after
``TTL_SECONDS``, so no ghost outlives a dead process by more than that. Readers drop expired members and count
distinct users (one player with two tabs open is one player). The key itself expires too, so a table nobody
visits leaves nothing behind.

Best effort: presence is a display. A Redis error is logged and never fails a socket.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Iterable
from typing import Any

from django.conf import settings

from baccarat_site.redis_client import async_redis_client, redis_client

logger = logging.getLogger(__name__)

TTL_SECONDS = 60
REFRESH_SECONDS = 20

# One client per event loop (its connections belong to the loop that made them); gone with the loop.
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = weakref.WeakKeyDictionary()


def _key(table_id: int) -> str:
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:tables:presence:{table_id}"


def _async_client() -> Any:
    """A redis.asyncio client for this event loop (a client's connections belong to the loop that made them)."""
    clients = _async_clients.setdefault(asyncio.get_running_loop(), {})
    key = getattr(settings, "REDIS_SENTINEL", None) or settings.REDIS_URL
    client = clients.get(key)
    if client is None:
        client = clients[key] = async_redis_client(socket_timeout=5)
    return client


async def enter(table_id: int, user_id: int, token: str) -> None:
    """Count ``user_id`` at ``table_id`` for the next ``TTL_SECONDS`` (call again to stay counted)."""
    key = _key(table_id)
    try:
        pipe = _async_client().pipeline(transaction=False)
        pipe.zadd(key, {f"{user_id}:{token}": time.time() + TTL_SECONDS})
        pipe.expire(key, TTL_SECONDS)
        await pipe.execute()
    except Exception:
        logger.warning("presence: could not record user %s at table %s", user_id, table_id, exc_info=True)


async def leave(table_id: int, user_id: int, token: str) -> None:
    try:
        await _async_client().zrem(_key(table_id), f"{user_id}:{token}")
    except Exception:
        logger.warning("presence: could not remove user %s from table %s", user_id, table_id, exc_info=True)


async def keep(table_id: int, user_id: int, token: str) -> None:
    """Enter now and refresh until cancelled (the socket closed); then leave."""
    try:
        while True:
            await enter(table_id, user_id, token)
            await asyncio.sleep(REFRESH_SECONDS)
    finally:
        await asyncio.shield(leave(table_id, user_id, token))


def _distinct_users(members: Iterable[bytes]) -> int:
    return len({member.split(b":", 1)[0] for member in members})


def _queue_reads(pipe: Any, table_ids: list[int], now: float) -> None:
    for table_id in table_ids:
        key = _key(table_id)
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zrange(key, 0, -1)


def _counts(table_ids: list[int], replies: list[Any]) -> dict[int, int]:
    return {table_id: _distinct_users(replies[2 * i + 1]) for i, table_id in enumerate(table_ids)}


def player_counts(table_ids: Iterable[int]) -> dict[int, int]:
    """Signed-in users at each table now (synchronous; one round trip for all tables). 0 when Redis fails."""
    ids = list(table_ids)
    try:
        pipe = redis_client().pipeline(transaction=False)
        _queue_reads(pipe, ids, time.time())
        return _counts(ids, pipe.execute())
    except Exception:
        logger.warning("presence: could not read player counts", exc_info=True)
        return dict.fromkeys(ids, 0)


async def player_counts_async(table_ids: Iterable[int]) -> dict[int, int] | None:
    """As :func:`player_counts`, from async code; None when Redis fails (keep what was shown)."""
    ids = list(table_ids)
    try:
        pipe = _async_client().pipeline(transaction=False)
        _queue_reads(pipe, ids, time.time())
        return _counts(ids, await pipe.execute())
    except Exception:
        logger.warning("presence: could not read player counts", exc_info=True)
        return None
