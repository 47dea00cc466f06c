"""The database flush after a transactional test outlasts a deadlock with a process that is still writing
(tests/conftest.py ``_flush_outlasts_a_deadlock``): a real deadlock, made on purpose, on the test database."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, connections

from tests.conftest import retrying_a_deadlock


def _other_connection() -> psycopg.Connection:
    params = connection.get_connection_params()
    keep = {key: params[key] for key in ("dbname", "user", "password", "host", "port") if params.get(key)}
    return psycopg.connect(**keep)


def _waiting_flush(watch: psycopg.Connection, flusher_pid: list[int]) -> tuple[str, str]:
    """Once the flush waits for a lock: (a table it already holds, the table it waits for)."""
    for _ in range(200):
        rows = watch.execute(
            "SELECT l.pid, c.relname, l.granted FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE l.mode = 'AccessExclusiveLock' AND c.relkind = 'r' AND l.pid <> pg_backend_pid()"
        ).fetchall()
        waiting = [(pid, name) for pid, name, granted in rows if not granted]
        if waiting:
            pid, wanted = waiting[0]
            held = [name for p, name, granted in rows if granted and p == pid]
            if held:
                flusher_pid.append(pid)
                return held[0], wanted
        time.sleep(0.05)
    raise AssertionError("the flush never waited for a lock while holding one")


@pytest.mark.django_db(transaction=True)
def test_a_flush_that_deadlocks_with_a_writer_is_tried_again_and_empties_the_database() -> None:
    call_command("flush", interactive=False, verbosity=0)  # a known start: the writer's table is the flush's
    writer = _other_connection()
    watch = _other_connection()
    watch.autocommit = True
    outcome: dict[str, object] = {}
    try:
        # The writer holds a table the flush reaches late: the flush waits for it, holding the ones before.
        tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
        last = tables[-1]
        writer.execute(f'SELECT 1 FROM "{last}" LIMIT 1')

        def flush() -> None:
            try:
                call_command("flush", interactive=False, verbosity=0)
                outcome["flushed"] = True
            except Exception as error:  # the test reports it
                outcome["error"] = error
            finally:
                connections.close_all()

        thread = threading.Thread(target=flush)
        thread.start()
        pid: list[int] = []
        held, _wanted = _waiting_flush(watch, pid)
        # Now the writer wants a table the flush holds: a cycle. The flush has waited longer, so PostgreSQL's
        # deadlock check (after deadlock_timeout) finds it on the flush's side and aborts the flush's TRUNCATE.
        writer.execute(f'SELECT 1 FROM "{held}" LIMIT 1')
        writer.commit()
        thread.join(timeout=30)
        assert not thread.is_alive()
        assert outcome == {"flushed": True}, outcome
    finally:
        writer.close()
        watch.close()


def test_a_command_is_tried_again_after_a_deadlock_only() -> None:
    from django.core.management.base import CommandError

    class Deadlock(Exception):
        sqlstate = "40P01"

    calls: list[int] = []

    def deadlocks_twice(_self: object, **_options: object) -> str:
        calls.append(1)
        if len(calls) <= 2:
            raise CommandError("couldn't be flushed") from Deadlock()
        return "done"

    assert retrying_a_deadlock(deadlocks_twice)(None) == "done"
    assert len(calls) == 3

    def fails_otherwise(_self: object, **_options: object) -> str:
        raise CommandError("couldn't be flushed") from ValueError("no such table")

    with pytest.raises(CommandError):
        retrying_a_deadlock(fails_otherwise)(None)

    calls.clear()
    with pytest.raises(CommandError):
        retrying_a_deadlock(deadlocks_twice, tries=2)(None)
    assert len(calls) == 2
