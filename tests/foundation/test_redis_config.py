"""Where Redis is: ``REDIS_URL``, or Redis Sentinel from ``REDIS_SENTINELS`` / ``REDIS_SENTINEL_MASTER`` /
``REDIS_SENTINEL_DB`` (baccarat_site.redis_config), read strictly; and the settings every Redis user gets from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from baccarat_site.redis_config import (
    RedisSentinel,
    cache_backend,
    celery_broker,
    channel_layer_host,
    parse_sentinels,
    redis_sentinel_from_env,
)

ROOT = Path(__file__).resolve().parents[2]
TWO = RedisSentinel(sentinels=(("10.0.0.1", 26379), ("fd00::3", 26380)), master="casino", db=2)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10.0.0.1:26379", (("10.0.0.1", 26379),)),
        (" s1.internal:26379 , s2.internal:26380,", (("s1.internal", 26379), ("s2.internal", 26380))),
        ("[::1]:26379,localhost:1", (("::1", 26379), ("localhost", 1))),
    ],
)
def test_sentinels_are_a_comma_separated_list_of_host_and_port(value, expected):
    assert parse_sentinels(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "10.0.0.1",  # no port
        "10.0.0.1:",  # empty port
        ":26379",  # no host
        "10.0.0.1:26379:1",  # two ports
        "10.0.0.1:0",  # out of range
        "10.0.0.1:65536",
        "10.0.0.1:port",
        "10.0.0.1 26379",
        "10.0.0.1:26379;10.0.0.2:26379",  # kombu's separator, not ours
        "redis://10.0.0.1:26379",  # a URL
        "::1:26379",  # IPv6 without brackets
        " , ",  # nothing at all
    ],
)
def test_a_malformed_sentinel_list_is_refused_with_its_name(value):
    with pytest.raises(ImproperlyConfigured, match="REDIS_SENTINELS"):
        parse_sentinels(value)


def test_without_sentinels_there_is_no_sentinel_set_up():
    assert redis_sentinel_from_env({}) is None
    assert redis_sentinel_from_env({"REDIS_SENTINELS": "  ", "REDIS_SENTINEL_MASTER": "casino"}) is None


def test_the_master_name_defaults_to_mymaster_and_the_database_to_0():
    assert redis_sentinel_from_env({"REDIS_SENTINELS": "s1:26379"}) == RedisSentinel((("s1", 26379),), "mymaster", 0)
    found = redis_sentinel_from_env(
        {"REDIS_SENTINELS": "s1:26379", "REDIS_SENTINEL_MASTER": "", "REDIS_SENTINEL_DB": ""}
    )
    assert found == RedisSentinel((("s1", 26379),), "mymaster", 0)
    found = redis_sentinel_from_env(
        {"REDIS_SENTINELS": "s1:26379", "REDIS_SENTINEL_MASTER": " casino-1 ", "REDIS_SENTINEL_DB": "3"}
    )
    assert found == RedisSentinel((("s1", 26379),), "casino-1", 3)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REDIS_SENTINEL_DB", "-1"),
        ("REDIS_SENTINEL_DB", "one"),
        ("REDIS_SENTINEL_DB", "1.5"),
        ("REDIS_SENTINEL_DB", "²"),  # str.isdigit() says yes; int() then raised a bare ValueError
        ("REDIS_SENTINEL_DB", "9" * 5000),
        ("REDIS_SENTINEL_MASTER", "my master"),
        ("REDIS_SENTINEL_MASTER", "a/b"),
    ],
)
def test_a_malformed_master_name_or_database_is_refused_with_its_name(name, value):
    with pytest.raises(ImproperlyConfigured, match=name):
        redis_sentinel_from_env({"REDIS_SENTINELS": "s1:26379", name: value})


def test_without_sentinels_every_user_takes_redis_url_as_before():
    url = "redis://cache.internal:6379/4"
    assert cache_backend(url, None) == {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    assert channel_layer_host(url, None, socket_timeout=15) == {"address": url, "socket_timeout": 15}
    assert celery_broker(url, None) == (url, {})
    assert celery_broker("unix:///run/redis.sock", None) == ("redis+socket:///run/redis.sock", {})


def test_with_sentinels_every_user_goes_through_its_librarys_sentinel_support():
    assert cache_backend("", TWO) == {
        "BACKEND": "baccarat_site.redis_client.SentinelRedisCache",
        "LOCATION": "sentinel://10.0.0.1:26379;sentinel://[fd00::3]:26380/casino/2",
    }
    host = channel_layer_host("", TWO, socket_timeout=15, max_connections=10)
    assert host == {
        "sentinels": [("10.0.0.1", 26379), ("fd00::3", 26380)],
        "master_name": "casino",
        "sentinel_kwargs": TWO.sentinel_kwargs,
        "db": 2,
        "socket_timeout": 15,
        "max_connections": 10,
    }
    url, options = celery_broker("", TWO)
    assert url == "sentinel://10.0.0.1:26379/2;sentinel://[fd00::3]:26380/2"
    assert options == {"master_name": "casino", "sentinel_kwargs": TWO.sentinel_kwargs}


def test_channels_redis_makes_a_sentinel_pool_from_the_host_entry():
    from channels_redis.utils import create_pool
    from redis.asyncio.sentinel import SentinelConnectionPool

    pool = create_pool(channel_layer_host("", TWO, socket_timeout=15))
    assert isinstance(pool, SentinelConnectionPool)
    assert pool.service_name == "casino"
    assert pool.connection_kwargs["db"] == 2
    assert pool.connection_kwargs["socket_timeout"] == 15


def _settings_in_a_fresh_interpreter(**env: str) -> subprocess.CompletedProcess[str]:
    names = {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "CELERY_BROKER_URL", "CACHE_KEY_PREFIX"}
    clean = {k: v for k, v in os.environ.items() if k not in names and not k.startswith("REDIS_SENTINEL")}
    code = (
        "import json\n"
        "from baccarat_site import settings as s\n"
        "host = s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]\n"
        "print(json.dumps({'cache': s.CACHES['default'], 'host': {k: host[k] for k in host if k != 'sentinel_kwargs'},"
        " 'broker': s.CELERY_BROKER_URL, 'transport': s.CELERY_BROKER_TRANSPORT_OPTIONS.get('master_name'),"
        " 'redis_url': s.REDIS_URL}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "BACCARAT_DEV": "1", "DATABASE_URL": "postgresql://u@db.internal/x", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_settings_without_sentinels_are_those_of_redis_url():
    done = _settings_in_a_fresh_interpreter(REDIS_URL="redis://cache.internal:6379/5")
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["cache"] == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://cache.internal:6379/5",
        "KEY_PREFIX": "baccarat",
    }
    assert facts["host"] == {
        "address": "redis://cache.internal:6379/5",
        "socket_timeout": 15,
        "socket_connect_timeout": 5,
        "max_connections": 2000,
    }
    assert facts["broker"] == "redis://cache.internal:6379/5"
    assert facts["transport"] is None


def test_the_settings_with_sentinels_send_every_redis_user_through_them():
    done = _settings_in_a_fresh_interpreter(
        REDIS_SENTINELS="s1.internal:26379,s2.internal:26379", REDIS_SENTINEL_MASTER="casino", REDIS_SENTINEL_DB="1"
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["cache"]["BACKEND"] == "baccarat_site.redis_client.SentinelRedisCache"
    assert facts["host"] == {
        "sentinels": [["s1.internal", 26379], ["s2.internal", 26379]],
        "master_name": "casino",
        "db": 1,
        "socket_timeout": 15,
        "socket_connect_timeout": 5,
        "max_connections": 2000,
    }
    assert facts["broker"] == "sentinel://s1.internal:26379/1;sentinel://s2.internal:26379/1"
    assert facts["transport"] == "casino"
    assert facts["redis_url"] == ""  # nothing connects to REDIS_URL, not even the embedded one


def test_a_malformed_sentinel_list_stops_the_settings():
    done = _settings_in_a_fresh_interpreter(REDIS_SENTINELS="s1.internal")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "REDIS_SENTINELS='s1.internal': 's1.internal' is not host:port" in done.stderr


def test_production_with_sentinels_needs_no_redis_url():
    done = _settings_in_a_fresh_interpreter(
        BACCARAT_DEV="0", SECRET_KEY="x" * 60, REDIS_SENTINELS="s1.internal:26379", DEBUG="0"
    )
    assert done.returncode == 0, done.stderr
    assert (
        json.loads(done.stdout.strip().splitlines()[-1])["cache"]["LOCATION"]
        == "sentinel://s1.internal:26379/mymaster/0"
    )
