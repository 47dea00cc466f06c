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


def async_redis_client(**options: Any) -> Any:
    """A new redis.asyncio client for ``settings.REDIS_URL`` or the sentinels' primary, with these connection
    options. Its connections belong to the running event loop: keep one per loop (tables.presence does)."""
    import redis.asyncio  # inside: importing redis costs about 120 ms

    sentinel = _sentinel()
    if sentinel is None:
        return redis.asyncio.Redis.from_url(settings.REDIS_URL, **options)
    import redis.asyncio.sentinel

    manager = redis.asyncio.sentinel.Sentinel(list(sentinel.sentinels), sentinel_kwargs=sentinel.sentinel_kwargs)
    return manager.master_for(sentinel.master, db=sentinel.db, **options)


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
