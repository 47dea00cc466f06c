"""What every benchmark needs first: the project's PostgreSQL and Redis (the embedded ones under var/
when DATABASE_URL / REDIS_URL are unset) and a scratch database it may drop, on loopback only."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit


def service_urls() -> tuple[str, str]:
    """DATABASE_URL / REDIS_URL as the project would use them (starting the embedded servers if unset)."""
    db_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not db_url or not redis_url:
        from baccarat_site import embedded

        db_url = db_url or embedded.ensure_postgres()
        redis_url = redis_url or embedded.ensure_redis()
    for url in (db_url, redis_url):
        host = urlsplit(url).hostname
        if host not in (None, "", "127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"the benchmarks only talk to loopback servers, not {host}")
    return db_url, redis_url


def with_database(url: str, name: str) -> str:
    """The same server, another database."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def recreate_database(db_url: str, name: str) -> str:
    """Drop (forcibly) and create the scratch database ``name``; return its URL."""
    import psycopg

    with psycopg.connect(with_database(db_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(db_url, name)


def drop_database(db_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(with_database(db_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
