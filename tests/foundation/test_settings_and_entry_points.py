"""Settings that shape performance, and the WSGI entry point docs/deployment.md deploys the REST API on."""

from __future__ import annotations

import io
import sys

import pytest
from django.core import signals
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections, connection, connections, transaction

from baccarat_site.settings import database_from_url, env_prepare_threshold
from baccarat_site.wsgi import application
from wallets.services import prepared_cursor


def test_prepared_statements_are_on_by_default_on_the_live_connection(db):
    connection.ensure_connection()
    assert connection.connection.prepare_threshold == 5


@pytest.mark.parametrize(("value", "expected"), [("5", 5), ("1", 1), ("0", 0), ("off", None), ("", None)])
def test_db_prepare_threshold_sets_it_or_turns_it_off_for_poolers(monkeypatch, value, expected):
    monkeypatch.setenv("DB_PREPARE_THRESHOLD", value)
    assert env_prepare_threshold() == expected


def test_transaction_pooling_turns_prepared_statements_and_server_side_cursors_off(monkeypatch):
    monkeypatch.delenv("DB_PREPARE_THRESHOLD", raising=False)
    url = "postgresql://casino@pgbouncer:6432/baccarat"
    assert database_from_url(url)["DISABLE_SERVER_SIDE_CURSORS"] is False
    monkeypatch.setenv("DB_TRANSACTION_POOLING", "on")
    assert env_prepare_threshold() is None
    assert database_from_url(url)["OPTIONS"]["prepare_threshold"] is None
    assert database_from_url(url)["DISABLE_SERVER_SIDE_CURSORS"] is True
    monkeypatch.setenv("DB_PREPARE_THRESHOLD", "off")
    assert env_prepare_threshold() is None


def test_a_prepare_threshold_under_transaction_pooling_stops_the_start(monkeypatch):
    monkeypatch.setenv("DB_TRANSACTION_POOLING", "on")
    monkeypatch.setenv("DB_PREPARE_THRESHOLD", "5")
    with pytest.raises(ImproperlyConfigured, match="DB_TRANSACTION_POOLING"):
        env_prepare_threshold()


def test_the_money_path_statements_really_are_prepared_after_a_few_confirms(db):
    for _ in range(6):
        with transaction.atomic(), prepared_cursor() as cursor:
            cursor.execute("SELECT %s::int + 1", [41])
            assert cursor.fetchone() == (42,)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int + 1%%'")
        assert cursor.fetchone()[0] == 1


def test_the_wsgi_entry_point_serves_the_rest_api(db):
    status: list[str] = []
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/api/tables/",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "HTTP_HOST": "127.0.0.1",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
    }
    # As Django's test client does: the test's own connection (and transaction) must outlive the request.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, lambda s, headers, exc=None: status.append(s)))
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    assert status == ["200 OK"]
    assert body.startswith(b"[")


def test_a_statement_that_went_through_stands_for_the_requests_health_check(transactional_db, monkeypatch):
    # CONN_HEALTH_CHECKS: Django asks SELECT 1 before a request's first transaction; a confirm's token check has
    # just used the connection, so its transaction must not spend that round trip asking again.
    checks: list[int] = []
    monkeypatch.setattr(type(connections["default"]), "is_usable", lambda self: checks.append(1) or True)
    connection.ensure_connection()
    connection.health_check_done = False
    with prepared_cursor() as cursor:
        cursor.execute("SELECT 1")
    with transaction.atomic():
        pass
    assert checks == []
    connection.health_check_done = False
    with transaction.atomic():  # a transaction before any statement of the request still asks
        pass
    assert checks == [1]
