"""What every benchmark needs: the project's PostgreSQL and Redis (the embedded ones under var/ when
DATABASE_URL / REDIS_URL are unset), a scratch database it may drop, on loopback only, and a clean stop
of the server processes it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from urllib.parse import urlsplit, urlunsplit

import psycopg

from baccarat_site import embedded


def service_urls() -> tuple[str, str]:
    """DATABASE_URL / REDIS_URL as the project would use them (starting the embedded servers if unset)."""
    db_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not db_url or not redis_url:
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
    with psycopg.connect(with_database(db_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_database(db_url, name)


def drop_database(db_url: str, name: str) -> None:
    with psycopg.connect(with_database(db_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def django_setup(bench_url: str, redis_url: str, **env: str) -> None:
    """Set this process up as the casino against the scratch database (``env``: more variables, such as
    ``CHANNELS_PREFIX``), and migrate it."""
    os.environ["DATABASE_URL"] = bench_url
    os.environ["REDIS_URL"] = redis_url
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # Django is imported once the environment names the database: its settings read it at import.
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def stop_groups(procs: list[subprocess.Popen]) -> None:
    """Stop each process's whole group (a server's workers included): TERM to all, then KILL stragglers."""
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
