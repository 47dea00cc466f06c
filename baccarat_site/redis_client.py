"""The project's Redis clients, made in one place from the settings: ``REDIS_URL``, or with ``REDIS_SENTINELS`` the
primary the sentinels name now (``settings.REDIS_SENTINEL``, baccarat_site.redis_config).

One sync client (with its connection pool) per process, for the project's own small Redis calls (frame sequence,
throttles, bet-total bookkeeping). Django's cache object is per thread, and under ASGI every request runs in a new
thread: going through it would open a new Redis connection per request. With sentinels the cache
(:class:`SentinelRedisCache`) borrows this client's pool. The async clients (presence, socket caps) are one per
event loop, made by :func:`async_redis_client`. The channel layer and Celery keep their own connections (configured
in the settings, from the same variables).

With sentinels, redis-py's ``Sentinel.master_for`` asks them for the primary's address whenever it opens a
connection, and drops the connections to a former primary: after a failover the next command (or its retry) reaches
the new one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[Any, Any] = {}


def _sentinel() -> Any:
    return getattr(settings, "REDIS_SENTINEL", None)


def redis_client() -> Any:
    """The process's client for ``settings.REDIS_URL``, or for the sentinels' primary (made on first use)."""
    import redis  # here, not at the top: importing redis costs about 120 ms, and django.setup() needs none of it

    sentinel = _sentinel()
    key = sentinel or settings.REDIS_URL
    client = _clients.get(key)
    if client is None:
        if sentinel is None:
            client = redis.Redis.from_url(settings.REDIS_URL)
        else:
            import redis.sentinel

            manager = redis.sentinel.Sentinel(list(sentinel.sentinels), sentinel_kwargs=sentinel.sentinel_kwargs)
            client = manager.master_for(sentinel.master, db=sentinel.db)
        client = _clients.setdefault(key, client)
    return client


#: Connections of one async client (one per event loop) and how long a command waits for one of them. A daphne's
#: connect storm (thousands of sockets at once, after another process's loss) takes a socket-cap and a presence
#: command each: past redis-py's pool of 100 they failed with "Too many connections" (the cap let those sockets in
#: unchecked); they now queue for a connection.
ASYNC_POOL_SIZE = 100
ASYNC_POOL_WAIT_SECONDS = 10.0


def async_redis_client(**options: Any) -> Any:
    """A new redis.asyncio client for ``settings.REDIS_URL`` or the sentinels' primary, with these connection
    options, on a blocking pool (``ASYNC_POOL_SIZE``). Its connections belong to the running event loop: keep one
    per loop (tables.presence does)."""
    import redis.asyncio  # inside: importing redis costs about 120 ms

    pool = {"max_connections": ASYNC_POOL_SIZE, "timeout": ASYNC_POOL_WAIT_SECONDS, **options}
    sentinel = _sentinel()
    if sentinel is None:
        return redis.asyncio.Redis(
            connection_pool=redis.asyncio.BlockingConnectionPool.from_url(settings.REDIS_URL, **pool)
        )
    import redis.asyncio.sentinel

    class BlockingSentinelPool(redis.asyncio.sentinel.SentinelConnectionPool, redis.asyncio.BlockingConnectionPool):
        """The sentinels' primary, on a pool that waits for a free connection (redis-py has no such class)."""

    manager = redis.asyncio.sentinel.Sentinel(list(sentinel.sentinels), sentinel_kwargs=sentinel.sentinel_kwargs)
    return manager.master_for(sentinel.master, db=sentinel.db, connection_pool_class=BlockingSentinelPool, **pool)


class SentinelCacheClient(RedisCacheClient):
    """Django's Redis cache client on the process's Sentinel-managed pool (:func:`redis_client`) instead of a pool
    made from LOCATION (which then only describes the set-up). The pool is thread-safe and shared by every
    thread's cache object. The ``pool_class`` and connection options in OPTIONS do not apply; the serializer does."""

    def _get_connection_pool(self, write: bool) -> Any:
        return redis_client().connection_pool


class SentinelRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` through Redis Sentinel (settings.REDIS_SENTINEL)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SentinelCacheClient
