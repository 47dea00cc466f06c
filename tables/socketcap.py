"""How many WebSockets one player, and one address, may hold open at once (``WS_MAX_SOCKETS_PER_PLAYER``,
``WS_MAX_SOCKETS_PER_ADDRESS``), counted in Redis across every daphne process.

One sorted set per player (``<prefix>:sockets:user:<id>``) and per address (``<prefix>:sockets:addr:<ip>``): a
member per open socket, scored with the moment it stops counting. A socket's entries are refreshed every
``REFRESH_SECONDS`` and removed when it closes; a crashed process's entries simply expire after ``TTL_SECONDS``
(and the keys with them), so a count never leaks for longer than that. Taking a place is one Lua script: drop the
expired members, refuse if either set is full, else add to both.

The refreshing is done once per process (per event loop), not once per socket: :class:`SlotKeeper` refreshes
every place the process holds in one pipelined round, one ZADD per key. A task and a timer per socket, and a
Redis round trip per socket every ``REFRESH_SECONDS``, were 1.5 KiB of a daphne's memory per idle socket and
500 round trips a second at 10,000 sockets (bench/sockets_per_daphne.py).

The address is the client's (:func:`baccarat_site.client_address.client_address`), as for the sign-in throttle:
the connection's (``scope["client"]``), or behind a trusted proxy the one it forwards; a client-sent
``X-Forwarded-For`` is never believed. Best effort like presence: if Redis fails, the socket is let in (and
logged), never refused for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from typing import Any

from django.conf import settings

from baccarat_site.cancelling import cancel_until_done
from baccarat_site.client_address import client_address
from tables.presence import _async_client

logger = logging.getLogger(__name__)

TTL_SECONDS = 60
REFRESH_SECONDS = 20
# Commands per pipeline when a keeper refreshes its places: bounded replies, other clients served in between.
REFRESH_BATCH = 1000

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
    """The address a socket is counted under (None: unknown, only the player's cap applies)."""
    return client_address(scope) or None


class SocketSlot:
    """One socket's place in its player's and its address's counts: :meth:`take` at connect, then :meth:`hold`
    (its loop's :class:`SlotKeeper` refreshes it from then on) until :meth:`drop` gives it back."""

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

    def hold(self) -> None:
        """Keep the place (taken) until :meth:`drop`: this event loop's keeper refreshes it."""
        if any(self.keys):
            SlotKeeper.for_loop().add(self)

    def drop(self) -> None:
        """The socket closed: stop refreshing the place and give it back (in the background)."""
        keeper = SlotKeeper.of_loop()
        if keeper is not None:
            keeper.discard(self)
        if any(self.keys):
            task = asyncio.ensure_future(self.release())
            _releasing.add(task)
            task.add_done_callback(_releasing.discard)

    async def release(self) -> None:
        try:
            pipe = _async_client().pipeline(transaction=False)
            for key in filter(None, self.keys):
                pipe.zrem(key, self.member)
            await pipe.execute()
        except Exception:
            logger.warning("socket cap: could not release a socket's place", exc_info=True)


# Releases under way (a task nothing else references could be collected before it ran).
_releasing: set[asyncio.Task] = set()


class SlotKeeper:
    """The places one event loop's sockets hold, refreshed together every ``REFRESH_SECONDS`` by one task (started
    with the first place, ended with the last)."""

    _keepers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SlotKeeper] = weakref.WeakKeyDictionary()

    def __init__(self) -> None:
        self.slots: set[SocketSlot] = set()
        self.task: asyncio.Task | None = None

    @classmethod
    def for_loop(cls) -> SlotKeeper:
        """The running event loop's keeper, made if it has none."""
        loop = asyncio.get_running_loop()
        keeper = cls._keepers.get(loop)
        if keeper is None:
            keeper = cls._keepers[loop] = cls()
        return keeper

    @classmethod
    def of_loop(cls) -> SlotKeeper | None:
        """The running event loop's keeper, if it has one."""
        return cls._keepers.get(asyncio.get_running_loop())

    def add(self, slot: SocketSlot) -> None:
        self.slots.add(slot)
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._run())

    def discard(self, slot: SocketSlot) -> None:
        self.slots.discard(slot)
        if not self.slots and self.task is not None:
            cancel_until_done(self.task)
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            try:
                await self.refresh()
            except Exception:
                logger.warning("socket cap: could not refresh this process's %d places", len(self.slots), exc_info=True)

    async def refresh(self) -> None:
        """Push every held place's expiry forward: per key, one ZADD of all its members and one EXPIRE. Only
        members still there are updated (XX): a place given back while the refresh was under way stays given
        back, and one Redis lost is not counted again (best effort, as when Redis fails at ``take``)."""
        members: dict[str, list[str]] = {}
        for slot in list(self.slots):
            for key in filter(None, slot.keys):
                members.setdefault(key, []).append(slot.member)
        expires = time.time() + TTL_SECONDS
        keys = list(members)
        for start in range(0, len(keys), REFRESH_BATCH // 2):
            pipe = _async_client().pipeline(transaction=False)
            for key in keys[start : start + REFRESH_BATCH // 2]:
                pipe.zadd(key, dict.fromkeys(members[key], expires), xx=True)
                pipe.expire(key, TTL_SECONDS)
            await pipe.execute()
