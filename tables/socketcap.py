"""How many WebSockets one player, and one address, may hold open at once (``WS_MAX_SOCKETS_PER_PLAYER``,
``WS_MAX_SOCKETS_PER_ADDRESS``), counted in Redis across every daphne process.

One sorted set per player (``<prefix>:sockets:user:<id>``) and per address (``<prefix>:sockets:addr:<ip>``): a
member per open socket, scored with the moment it stops counting. A socket refreshes its entries every
``REFRESH_SECONDS`` and removes them when it closes; a crashed process's entries simply expire after
``TTL_SECONDS`` (and the keys with them), so a count never leaks for longer than that. Taking a place is one
Lua script: drop the expired members, refuse if either set is full, else add to both.

The address is the connection's (``scope["client"]``, what daphne reports as REMOTE_ADDR), as for the sign-in
throttle: a client-sent ``X-Forwarded-For`` is never read. Best effort like presence: if Redis fails, the
socket is let in (and logged), never refused for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any

from django.conf import settings

from tables.presence import _async_client

logger = logging.getLogger(__name__)

TTL_SECONDS = 60
REFRESH_SECONDS = 20

PER_PLAYER = "player"
PER_ADDRESS = "address"

# KEYS: the player's set ("" for a watcher), the address's set ("" when unknown).
# ARGV: now, the entry's expiry, the member, the player limit, the address limit, the keys' TTL.
# Returns 0 (taken), 1 (the player's sockets are at the limit) or 2 (the address's are).
_TAKE = """
local now, expires, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local limits = {tonumber(ARGV[4]), tonumber(ARGV[5])}
for i = 1, 2 do
  if KEYS[i] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    if limits[i] > 0 and redis.call('ZCARD', KEYS[i]) >= limits[i] and not redis.call('ZSCORE', KEYS[i], member) then
      return i
    end
  end
end
for i = 1, 2 do
  if KEYS[i] ~= '' then
    redis.call('ZADD', KEYS[i], expires, member)
    redis.call('EXPIRE', KEYS[i], ARGV[6])
  end
end
return 0
"""


def _prefix() -> str:
    return str(settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi"))


def _keys(user_id: int | None, address: str | None) -> list[str]:
    return [
        f"{_prefix()}:sockets:user:{user_id}" if user_id is not None else "",
        f"{_prefix()}:sockets:addr:{address}" if address else "",
    ]


def address_of(scope: dict[str, Any]) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


class SocketSlot:
    """One socket's place in its player's and its address's counts: :meth:`take` at connect, then
    :meth:`keep` running until the socket closes, which gives the place back."""

    def __init__(self, *, user_id: int | None, address: str | None) -> None:
        self.keys = _keys(user_id, address)
        self.member = uuid.uuid4().hex
        self.user_id, self.address = user_id, address

    async def take(self) -> str | None:
        """Take a place; None if taken (or Redis failed), else which cap refused it (PER_PLAYER, PER_ADDRESS)."""
        if not any(self.keys):
            return None
        now = time.time()
        try:
            refused = await _async_client().eval(
                _TAKE,
                2,
                *self.keys,
                now,
                now + TTL_SECONDS,
                self.member,
                int(settings.WS_MAX_SOCKETS_PER_PLAYER),
                int(settings.WS_MAX_SOCKETS_PER_ADDRESS),
                TTL_SECONDS,
            )
        except Exception:
            logger.warning("socket cap: Redis failed; letting the socket in", exc_info=True)
            return None
        return {1: PER_PLAYER, 2: PER_ADDRESS}.get(int(refused))

    async def _refresh(self) -> None:
        pipe = _async_client().pipeline(transaction=False)
        for key in filter(None, self.keys):
            pipe.zadd(key, {self.member: time.time() + TTL_SECONDS})
            pipe.expire(key, TTL_SECONDS)
        await pipe.execute()

    async def release(self) -> None:
        try:
            pipe = _async_client().pipeline(transaction=False)
            for key in filter(None, self.keys):
                pipe.zrem(key, self.member)
            await pipe.execute()
        except Exception:
            logger.warning("socket cap: could not release a socket's place", exc_info=True)

    async def keep(self) -> None:
        """Refresh the place every REFRESH_SECONDS until cancelled (the socket closed); then give it back."""
        try:
            while True:
                await asyncio.sleep(REFRESH_SECONDS)
                try:
                    await self._refresh()
                except Exception:
                    logger.warning("socket cap: could not refresh a socket's place", exc_info=True)
        finally:
            await asyncio.shield(self.release())
