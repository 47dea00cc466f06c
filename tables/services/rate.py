"""The per-player limit on bet confirms, shared by the REST API (``BetPlaceThrottle``) and the table socket.

``BET_THROTTLE_RATE`` (DRF syntax, e.g. "20/second") counts every confirm of a player however it arrives:
REST and any number of WebSockets share one counter. A fixed-window counter in Redis: one round trip per
confirm (INCR and EXPIRE pipelined) on the process-wide client, since this sits on the hottest path of the
casino. Keys carry the cache's key prefix. If Redis cannot be reached the confirm is let through: a
throttle must never fail a bet.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

from baccarat_site.redis_client import redis_client

logger = logging.getLogger(__name__)
SCOPE = "bet_place"
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _count(key: str, ttl: int) -> int | None:
    """INCR ``key`` (expiring in ``ttl`` s) and return the count; None if Redis fails twice."""
    import redis  # inside: importing redis costs about 120 ms (baccarat_site/redis_client.py)

    for attempt in (1, 2):
        try:
            pipe = redis_client().pipeline(transaction=False)
            pipe.incr(key)
            pipe.expire(key, ttl)
            return int(pipe.execute()[0])
        except (redis.RedisError, OSError, ValueError):
            if attempt == 2:
                logger.warning("bet throttle: Redis unavailable, letting the request through", exc_info=True)
    return None


def bet_rate_take(*, user_id: int) -> float | None:
    """Count one confirm of this player. None: go ahead; otherwise the seconds until the next is allowed."""
    rate = settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(SCOPE)
    if not rate:
        return None
    count, period = rate.split("/")
    limit = int(count)
    seconds = _PERIODS[period[0]]
    now = time.time()
    window = int(now // seconds)
    used = _count(cache.make_key(f"throttle:{SCOPE}:{user_id}:{window}"), seconds + 1)
    if used is None or used <= limit:
        return None
    return (window + 1) * seconds - now
