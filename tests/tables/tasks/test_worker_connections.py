"""The worker's database connections: each task is treated as Django treats a request (baccarat_site.celery), so a
worker with ``DB_CONN_MAX_AGE`` keeps its PostgreSQL session between tasks, and one with 0 closes it after each."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from django.db import InterfaceError, OperationalError, connection, connections

from baccarat_site.celery import database_as_for_a_request
from tables.models import Round, Table
from tests.tables.services.rounds_kit import fast_table
from tests.tables.tasks.stack import Stack, wait_for

TASK = SimpleNamespace(request=SimpleNamespace(is_eager=False))


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.fixture
def own_connection(settings):
    """The test's connection outside any transaction, as a worker's is between tasks."""
    connection.close()
    yield connection
    connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_connection_younger_than_its_max_age_is_kept_between_tasks(own_connection, monkeypatch):
    monkeypatch.setitem(own_connection.settings_dict, "CONN_MAX_AGE", 600)
    first = backend_pid()
    database_as_for_a_request(sender=TASK)  # the end of one task, the start of the next
    database_as_for_a_request(sender=TASK)
    assert backend_pid() == first


@pytest.mark.django_db(transaction=True)
def test_with_no_max_age_every_task_gets_a_new_connection(own_connection, monkeypatch):
    monkeypatch.setitem(own_connection.settings_dict, "CONN_MAX_AGE", 0)
    first = backend_pid()
    database_as_for_a_request(sender=TASK)
    assert own_connection.connection is None
    assert backend_pid() != first


@pytest.mark.django_db(transaction=True)
def test_a_connection_broken_during_a_task_is_replaced_before_the_next(own_connection, monkeypatch):
    monkeypatch.setitem(own_connection.settings_dict, "CONN_MAX_AGE", 600)
    first = backend_pid()
    other = connections.create_connection("default")  # as if PostgreSQL had restarted: the session is gone
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [first])
    finally:
        other.close()
    with pytest.raises((OperationalError, InterfaceError)):  # the task that meets it fails; the next run retries
        backend_pid()
    database_as_for_a_request(sender=TASK)
    assert backend_pid() != first


@pytest.mark.django_db(transaction=True)
def test_an_eager_task_leaves_its_callers_connection_alone(own_connection, monkeypatch):
    monkeypatch.setitem(own_connection.settings_dict, "CONN_MAX_AGE", 0)
    first = backend_pid()
    database_as_for_a_request(sender=SimpleNamespace(request=SimpleNamespace(is_eager=True)))
    assert backend_pid() == first


def client_backends(dbname: str) -> set[tuple[int, float]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, extract(epoch FROM backend_start) FROM pg_stat_activity"
            " WHERE datname = %s AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            [dbname],
        )
        return {(pid, float(start)) for pid, start in cursor.fetchall()}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("max_age", "kept"), [("600", True), ("0", False)])
def test_a_real_worker_keeps_its_sessions_across_tasks_only_with_a_max_age(tmp_path, max_age, kept):
    """With DB_CONN_MAX_AGE=600 (as deploy/ starts it) a worker of two processes and beat use a handful of sessions
    while dozens of tasks run; with 0, as Celery's fixup alone did, about one per task. The 0 case shows the test
    can tell the two apart."""
    table = fast_table("Sessions", betting_seconds=1, deal_interval_ms=50, result_seconds=0)
    dbname = connection.settings_dict["NAME"]
    seen: set[tuple[int, float]] = set()
    with Stack(tmp_path, tick=0.2) as stack:
        stack.env["DB_CONN_MAX_AGE"] = max_age
        stack.worker("worker", concurrency=2)
        stack.beat("beat")
        wait_for(lambda: Round.objects.filter(table=table).exists(), timeout=30, stack=stack, what="a first round")
        seen |= client_backends(dbname)
        settled = Round.objects.filter(table=table, state="settled").count()
        deadline = time.monotonic() + 60
        while Round.objects.filter(table=table, state="settled").count() < settled + 3:
            assert time.monotonic() < deadline, stack.logs_text()
            seen |= client_backends(dbname)
            time.sleep(0.01)
        Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    # three rounds are ~30 advances and ~15 sweeps: each a session of its own when none is kept
    if kept:
        assert len(seen) <= 6, seen
    else:
        assert len(seen) > 10, seen
