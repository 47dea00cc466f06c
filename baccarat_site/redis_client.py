"""One Redis client (with its connection pool) per process, for the project's own small Redis calls
(throttles, bet-total bookkeeping). Django's cache object is per thread, and under ASGI every request
runs in a new thread: going through it would open a new Redis connection per request. The channel
layer and Celery keep their own connections."""

from __future__ import annotations

from typing import Any

from django.conf import settings

_clients: dict[str, Any] = {}


def redis_client() -> Any:
    """The process's client for ``settings.REDIS_URL`` (made on first use)."""
    import redis  # here, not at the top: importing redis costs about 120 ms, and django.setup() needs none of it

    url = settings.REDIS_URL
    client = _clients.get(url)
    if client is None:
        client = _clients[url] = redis.Redis.from_url(url)
    return client
