"""Database helpers shared by the apps' services and selectors (PostgreSQL through psycopg 3)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from psycopg import Cursor


@contextmanager
def prepared_cursor() -> Iterator[Cursor[tuple[object, ...]]]:
    """A cursor on the default connection that binds parameters server-side, so a statement run
    again on the same (pooled) connection is a prepared statement: the hot paths (a confirm, a
    ledger post, a settlement) skip planning. Errors come out as Django's database exceptions.

    A statement that went through is as good a health check as Django's own ``SELECT 1``
    (``CONN_HEALTH_CHECKS``): the connection is marked checked for this request, so the
    ``transaction.atomic()`` that follows does not spend a round trip asking again (a confirm's
    token check runs here before its transaction opens)."""
    connection.ensure_connection()
    with connection.wrap_database_errors, Cursor(connection.connection) as cursor:
        yield cursor
    connection.health_check_done = True  # type: ignore[attr-defined]  # Django sets it; the stubs lack it
