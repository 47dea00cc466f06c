"""Where Redis is, read from the environment: one server (``REDIS_URL``) or a primary found through Redis Sentinel
(``REDIS_SENTINELS``, ``REDIS_SENTINEL_MASTER``, ``REDIS_SENTINEL_DB``).

Plain Python with no side effect, read by the settings. With sentinels, every Redis user asks them for the current
primary through its library's own Sentinel support: the cache and the project's clients through redis-py
(``baccarat_site.redis_client``), the channel layer through channels_redis's sentinel hosts, Celery through
kombu's ``sentinel://`` transport. None of them keeps a failover of its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from baccarat_site.numbers import whole_number

DEFAULT_MASTER = "mymaster"
# Asking one sentinel where the primary is must not hang on a dead one: the next is tried after this long.
SENTINEL_SOCKET_TIMEOUT = 2.0

# host:port, or [IPv6]:port.
_ADDRESS = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9_.-]+)):(?P<port>[0-9]{1,5})$")


@dataclass(frozen=True)
class RedisSentinel:
    """Where the sentinels are, the name they know the primary by, and the database number to use on it."""

    sentinels: tuple[tuple[str, int], ...]
    master: str = DEFAULT_MASTER
    db: int = 0

    @property
    def sentinel_kwargs(self) -> dict[str, float]:
        """Options for the connections to the sentinels themselves (not to the primary)."""
        return {"socket_timeout": SENTINEL_SOCKET_TIMEOUT, "socket_connect_timeout": SENTINEL_SOCKET_TIMEOUT}

    @property
    def location(self) -> str:
        """A readable description (the cache's LOCATION, logs): ``sentinel://h1:p1;sentinel://h2:p2/<master>/<db>``."""
        hosts = ";".join(f"sentinel://{_host(host)}:{port}" for host, port in self.sentinels)
        return f"{hosts}/{self.master}/{self.db}"


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def parse_sentinels(value: str, name: str = "REDIS_SENTINELS") -> tuple[tuple[str, int], ...]:
    """``"h1:26379, h2:26379,[::1]:26380"`` → ``(("h1", 26379), ("h2", 26379), ("::1", 26380))``.

    Empty items (a trailing comma) are skipped; anything else that is not ``host:port`` with a port in 1-65535
    raises ImproperlyConfigured, as does a value with no sentinel at all.
    """
    sentinels = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        match = _ADDRESS.match(item)
        port = int(match["port"]) if match else 0
        if match is None or not 1 <= port <= 65535:
            raise ImproperlyConfigured(
                f"{name}={value!r}: {item!r} is not host:port (a comma-separated list such as "
                "'10.0.0.1:26379,10.0.0.2:26379,[fd00::3]:26379')."
            )
        sentinels.append((match["v6"] or match["host"], port))
    if not sentinels:
        raise ImproperlyConfigured(f"{name}={value!r} names no sentinel (host:port, comma-separated).")
    return tuple(sentinels)


def redis_sentinel_from_env(environ: Mapping[str, str] = os.environ) -> RedisSentinel | None:
    """The Sentinel set-up from ``REDIS_SENTINELS`` (None when it is unset or empty: ``REDIS_URL`` then)."""
    value = environ.get("REDIS_SENTINELS", "")
    if not value.strip():
        return None
    master = environ.get("REDIS_SENTINEL_MASTER", "").strip() or DEFAULT_MASTER
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", master):
        raise ImproperlyConfigured(f"REDIS_SENTINEL_MASTER={master!r}: letters, digits, '.', '_' and '-' only.")
    db_value = environ.get("REDIS_SENTINEL_DB", "").strip() or "0"
    db = whole_number(db_value, max_digits=5)
    if db is None:
        raise ImproperlyConfigured(f"REDIS_SENTINEL_DB={db_value!r} is not a database number (0, 1, 2...).")
    return RedisSentinel(sentinels=parse_sentinels(value), master=master, db=db)


def cache_backend(redis_url: str, sentinel: RedisSentinel | None) -> dict[str, Any]:
    """The BACKEND and LOCATION of settings.CACHES["default"]."""
    if sentinel is None:
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}
    # Its connections come from the process's Sentinel-managed pool (baccarat_site.redis_client).
    return {"BACKEND": "baccarat_site.redis_client.SentinelRedisCache", "LOCATION": sentinel.location}


def channel_layer_host(redis_url: str, sentinel: RedisSentinel | None, **options: Any) -> dict[str, Any]:
    """One entry of the channel layer's ``hosts`` (channels_redis.utils.create_pool): a URL, or its sentinel form."""
    if sentinel is None:
        return {"address": redis_url, **options}
    return {
        "sentinels": list(sentinel.sentinels),
        "master_name": sentinel.master,
        "sentinel_kwargs": sentinel.sentinel_kwargs,
        "db": sentinel.db,
        **options,
    }


def celery_broker(redis_url: str, sentinel: RedisSentinel | None) -> tuple[str, dict[str, Any]]:
    """(broker URL, broker transport options) for Celery: kombu's ``sentinel://`` transport with sentinels."""
    if sentinel is None:
        return redis_url.replace("unix://", "redis+socket://", 1), {}
    url = ";".join(f"sentinel://{_host(host)}:{port}/{sentinel.db}" for host, port in sentinel.sentinels)
    return url, {"master_name": sentinel.master, "sentinel_kwargs": sentinel.sentinel_kwargs}
