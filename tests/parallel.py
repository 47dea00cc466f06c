"""Loaded by `make test-fast` (``-p tests.parallel`` with pytest-xdist's ``-n 2``) before Django reads its
settings: each worker gets its own Redis database. The workers' test databases hand out the same table and
player ids, and Redis keys are named by them (a table's frame sequence, a player's rate window), so two
workers on one Redis database would count each other's frames and bets."""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDIS_DATABASES = 16  # Redis's default


def worker_redis_url(url: str, worker: str) -> str:
    """``url`` moved to database (its own + the worker's number) mod 16: ``gw0`` keeps it."""
    number = int(worker.removeprefix("gw"))
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str((int(query.get("db", 0)) + number) % REDIS_DATABASES)
        return f"unix://{parts.path}?{urlencode(query)}"  # urlunsplit would drop the empty host's "//"
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base + number) % REDIS_DATABASES}"))


_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _url = os.environ.get("REDIS_URL")
    if not _url:
        from baccarat_site import embedded

        _url = embedded.ensure_redis()
    os.environ["REDIS_URL"] = worker_redis_url(_url, _worker)
