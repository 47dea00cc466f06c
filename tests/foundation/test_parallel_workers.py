"""`make test-fast`'s workers each get their own Redis database, in a URL redis-py still reads."""

from __future__ import annotations

import pytest
import redis

from tests.parallel import worker_redis_url


@pytest.mark.parametrize(
    ("url", "worker", "moved"),
    [
        ("redis://127.0.0.1:6379/5", "gw0", "redis://127.0.0.1:6379/5"),
        ("redis://127.0.0.1:6379/5", "gw1", "redis://127.0.0.1:6379/6"),
        ("redis://127.0.0.1:6379", "gw1", "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/15", "gw1", "redis://127.0.0.1:6379/0"),
        ("unix:///srv/var/redis.sock", "gw1", "unix:///srv/var/redis.sock?db=1"),
        ("unix:///srv/var/redis.sock?db=3", "gw2", "unix:///srv/var/redis.sock?db=5"),
    ],
)
def test_each_worker_moves_to_its_own_database(url, worker, moved):
    assert worker_redis_url(url, worker) == moved
    kwargs = redis.ConnectionPool.from_url(moved).connection_kwargs
    assert kwargs.get("db", 0) == int(moved.rsplit("=", 1)[-1] if "?db=" in moved else moved.rsplit("/", 1)[-1])
