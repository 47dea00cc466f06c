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
    ledger post, a settlement) skip planning. Errors come out as Django's database exceptions."""
    connection.ensure_connection()
    with connection.wrap_database_errors, Cursor(connection.connection) as cursor:
        yield cursor
