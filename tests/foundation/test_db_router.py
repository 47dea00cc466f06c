"""The replica router (baccarat_site.db_router): which reads may go to the replica, and the lag guard.

Fast: the ``replica`` alias is only pretended (``configured`` patched) and the lag measured by a stand-in, so no
query reaches a replica here; tests/foundation/test_replica_streaming.py runs the casino against a real one.
"""

from __future__ import annotations

import math

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import OperationalError, transaction
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory
from rest_framework.authtoken.models import Token

from baccarat_site import db_router
from baccarat_site.accounts.models import PlayLimit
from baccarat_site.db_router import REPLICA, LagGuard, ReplicaRouter, replica_tolerant
from baccarat_site.settings import database_from_url, replica_from_url
from tables.models import Bet, Round, Table
from wallets.models import LedgerEntry, Wallet

router = ReplicaRouter()


class FakeLag:
    """The replica's lag as the guard would measure it, on a clock the test moves."""

    def __init__(self, lag: float = 0.0) -> None:
        self.lag: float | Exception = lag
        self.now = 1000.0
        self.calls = 0

    def measure(self) -> float:
        self.calls += 1
        if isinstance(self.lag, Exception):
            raise self.lag
        return self.lag

    def clock(self) -> float:
        return self.now


@pytest.fixture
def lag(monkeypatch, settings) -> FakeLag:
    """A configured replica whose lag the test sets (REPLICA_MAX_LAG_SECONDS = 5)."""
    settings.REPLICA_MAX_LAG_SECONDS = 5
    fake = FakeLag()
    monkeypatch.setattr(db_router, "configured", lambda: True)
    monkeypatch.setattr(db_router, "guard", LagGuard(measure=fake.measure, clock=fake.clock))
    monkeypatch.setattr(db_router, "_discard_replica_connection", lambda: None)
    return fake


def routed(*models, method: str = "GET") -> list[str | None]:
    """Where each model's read goes from inside a marked view."""

    @replica_tolerant
    def view(request):
        return [router.db_for_read(model) for model in models]

    return view(RequestFactory().generic(method, "/"))


# ── settings ────────────────────────────────────────────────────────────────


def test_without_the_variable_there_is_no_replica_and_no_router(settings):
    assert REPLICA not in settings.DATABASES
    assert settings.DATABASE_ROUTERS == []
    assert router.db_for_read(Bet) is None
    assert router.db_for_write(Bet) is None
    assert routed(Bet) == [None]
    assert router.allow_migrate("default", "tables") is None


def test_the_replica_alias_is_built_like_default_and_mirrors_it_in_tests(monkeypatch):
    monkeypatch.delenv("DB_PREPARE_THRESHOLD", raising=False)
    monkeypatch.setenv("DB_POOL", "on")
    monkeypatch.setenv("DB_TRANSACTION_POOLING", "on")
    url = "postgresql://reader:secret@10.0.0.9:6432/baccarat"
    primary, replica = database_from_url(url), replica_from_url(url)
    assert replica["TEST"] == {"MIRROR": "default"}
    assert replica["OPTIONS"]["connect_timeout"] == 2
    assert replica["OPTIONS"]["pool"] == {**primary["OPTIONS"]["pool"], "timeout": 2}
    assert replica["OPTIONS"]["prepare_threshold"] is None
    same = {key: value for key, value in replica.items() if key not in {"OPTIONS", "TEST"}}
    assert same == {key: value for key, value in primary.items() if key not in {"OPTIONS", "TEST"}}
    assert same["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert same["HOST"] == "10.0.0.9"
    with pytest.raises(ValueError, match="DATABASE_REPLICA_URL"):
        replica_from_url("mysql://x/y")


# ── where reads go ──────────────────────────────────────────────────────────


def test_only_a_marked_views_reads_of_the_casinos_own_models_go_to_the_replica(lag):
    assert routed(Bet, Round, Table, LedgerEntry) == [REPLICA] * 4
    assert [router.db_for_read(model) for model in (Bet, LedgerEntry)] == ["default"] * 2  # not marked
    assert routed(User, Session, Token) == ["default"] * 3  # authentication, sessions, API tokens: never
    assert routed(Wallet, PlayLimit) == ["default"] * 2  # the balance in the header, a player's limits: never


def test_a_marked_view_reads_the_primary_for_anything_but_get_and_head(lag):
    assert routed(Bet, method="HEAD") == [REPLICA]
    assert routed(Bet, method="POST") == ["default"]


@pytest.mark.django_db
def test_inside_a_transaction_a_marked_view_reads_the_primary(lag):
    """A service called from a marked view writes in transaction.atomic: what it reads there is the primary's.
    (The test case's own wrapping transaction does not count: it stands for a request's autocommit.)"""

    @replica_tolerant
    def view(request):
        before = router.db_for_read(LedgerEntry)
        with transaction.atomic():
            inside = router.db_for_read(LedgerEntry)
            with transaction.atomic():
                nested = router.db_for_read(Bet)
        return before, inside, nested, router.db_for_read(LedgerEntry)

    assert view(RequestFactory().get("/")) == (REPLICA, "default", "default", REPLICA)


def test_writes_go_to_the_primary_migrations_run_there_and_relations_are_allowed(lag):
    bet = Bet()
    assert routed(Bet) == [REPLICA]
    assert router.db_for_write(Bet, instance=bet) == "default"
    bet._state.db = REPLICA
    assert router.db_for_write(Bet, instance=bet) == "default"  # never back to where it was read
    assert router.allow_migrate("default", "tables") is True
    assert router.allow_migrate(REPLICA, "tables") is False
    assert router.allow_relation(bet, Round()) is True


async def test_an_async_views_reads_in_a_thread_follow_its_mark(lag):
    @replica_tolerant
    async def view(request):
        return await sync_to_async(router.db_for_read)(Bet)

    assert await view(RequestFactory().get("/")) == REPLICA
    assert await sync_to_async(router.db_for_read)(Bet) == "default"


def test_a_streamed_response_reads_from_where_its_view_did_as_it_is_sent(lag):
    @replica_tolerant
    def view(request):
        return StreamingHttpResponse(router.db_for_read(Bet) for _ in range(2))

    response = view(RequestFactory().get("/"))
    assert router.db_for_read(Bet) == "default"  # the view has returned
    assert b"".join(response.streaming_content) == f"{REPLICA}{REPLICA}".encode()


async def test_an_async_streamed_response_too(lag):
    async def rows():
        for _ in range(2):
            yield await sync_to_async(router.db_for_read)(Bet)

    @replica_tolerant
    def view(request):
        return StreamingHttpResponse(rows())

    response = view(RequestFactory().get("/"))
    assert [chunk async for chunk in response.streaming_content] == [REPLICA.encode()] * 2


def test_an_ordinary_response_is_returned_as_it_is(lag):
    response = HttpResponse("x")
    assert replica_tolerant(lambda request: response)(RequestFactory().get("/")) is response


# ── the lag guard ───────────────────────────────────────────────────────────


def test_a_replica_behind_by_more_than_the_allowed_lag_is_not_read(lag):
    lag.lag = 5.0
    assert routed(Bet) == [REPLICA]
    lag.now += 1
    lag.lag = 5.5
    assert routed(Bet) == ["default"]
    lag.now += 1
    lag.lag = 0.0
    assert routed(Bet) == [REPLICA]


def test_an_unreachable_replica_is_not_read_and_asked_again_only_after_a_pause(lag):
    lag.lag = OperationalError("connection refused")
    assert routed(Bet) == ["default"]
    lag.lag = 0.0
    lag.now += db_router.RETRY_INTERVAL - 0.1
    assert routed(Bet) == ["default"]
    assert lag.calls == 1
    lag.now += 0.1
    assert routed(Bet) == [REPLICA]
    assert lag.calls == 2


def test_any_failure_of_the_check_serves_the_page_from_the_primary_and_is_logged_once(lag, caplog):
    lag.lag = RuntimeError("a bug in the check")
    assert routed(Bet) == ["default"]
    lag.lag = OperationalError("still away")
    for _ in range(3):
        lag.now += db_router.RETRY_INTERVAL
        assert routed(Bet) == ["default"]
    assert lag.calls == 4
    assert [record.levelname for record in caplog.records] == ["ERROR"]


def test_the_lag_is_asked_at_most_once_a_second_per_process(lag):
    for _ in range(50):
        assert routed(Bet, LedgerEntry) == [REPLICA, REPLICA]
    assert lag.calls == 1
    lag.lag = 9.0
    lag.now += 0.99
    assert routed(Bet) == [REPLICA]  # the last answer, under a second old
    lag.now += 0.01
    assert routed(Bet) == ["default"]
    assert lag.calls == 2


def test_one_view_call_reads_from_one_place_even_when_the_lag_changes_during_it(lag):
    @replica_tolerant
    def view(request):
        first = router.db_for_read(Bet)
        lag.lag, lag.now = 60.0, lag.now + 10
        return first, router.db_for_read(Round)

    assert view(RequestFactory().get("/")) == (REPLICA, REPLICA)
    assert routed(Bet) == ["default"]  # the next call asks again


def test_a_view_that_reads_nothing_routed_never_asks(lag):
    assert routed(User) == ["default"]
    assert lag.calls == 0


@pytest.mark.django_db
def test_the_lag_query_runs_and_a_server_not_in_recovery_is_never_fresh(monkeypatch):
    """measure_lag's SQL on a real server: the primary itself posing as the replica is not a standby, so it is
    never read as one (a promoted ex-replica no longer follows the primary)."""
    monkeypatch.setattr(db_router, "REPLICA", "default")
    assert db_router.measure_lag() == math.inf


def test_a_template_response_is_rendered_where_its_view_read(lag):
    """The admin's pages return a TemplateResponse the handler would render after the view: its queries (a form's
    choices) are made inside the mark instead."""
    from django.template import engines
    from django.template.response import TemplateResponse

    template = engines["django"].from_string("{{ where }}")

    @replica_tolerant
    def view(request):
        return TemplateResponse(request, template, {"where": lambda: router.db_for_read(Bet)})

    response = view(RequestFactory().get("/"))
    assert response.is_rendered
    assert response.content == REPLICA.encode()
