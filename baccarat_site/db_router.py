"""Reads of the read-heavy pages from a streaming replica (``DATABASE_REPLICA_URL``; docs/replica.md).

A read goes to the ``replica`` alias only when all of these hold, and to the primary (``default``) otherwise:

- the code runs inside a view marked :func:`replica_tolerant`, for a GET or HEAD request (a contextvar set for
  the view's duration, the rendering of its template response and the streaming of its content: sync and async
  views alike);
- the model is one of the casino's own (:data:`REPLICA_APPS`): never sessions, users, groups, permissions, tokens,
  sign-in throttles, audit entries, restrictions (everything a request's authentication or a guard reads), and
  never a wallet's balance (:data:`PRIMARY_ONLY`);
- the primary's connection is not inside ``transaction.atomic``: services write, and what they read inside their
  transaction (balances, locks, the round they settle) must be the primary's, so money never depends on a
  replica read;
- the replica is fresh: :class:`LagGuard` found its replay lag within ``REPLICA_MAX_LAG_SECONDS``, checked at
  most once a second per process, and once per view call (one page never mixes the two).

Writes always go to the primary, migrations run only there, and relations between the two aliases are allowed
(they hold the same rows). Without ``DATABASE_REPLICA_URL`` there is no ``replica`` alias, the settings list no
router, and :func:`replica_tolerant` only sets a contextvar nothing reads.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models import Model

REPLICA = "replica"
#: Apps whose models a marked view may read from the replica: the tables (rounds, bets, shoes, ...) and the
#: wallets (the ledger the players report sums). Reads there inside a transaction still go to the primary.
REPLICA_APPS = frozenset({"tables", "wallets"})
#: ...except these: a wallet's balance is shown in every page's header, and a player deciding a stake on it must
#: see what the ledger holds now, not a second ago (the history a page lists may lag; the balance never does).
PRIMARY_ONLY = frozenset({"wallets.wallet"})
#: How often one process asks the replica for its lag (at most), and how long it waits after it failed to
#: answer before asking again (a replica that is down would otherwise cost a request a connect timeout a second).
CHECK_INTERVAL = 1.0
RETRY_INTERVAL = 5.0
SAFE_METHODS = frozenset({"GET", "HEAD"})

log = logging.getLogger(__name__)

#: Lag query on the replica: whether it is a standby at all, whether it has replayed everything the primary had
#: written when asked (``%s``: the primary's ``pg_current_wal_lsn()``, read just before), and otherwise the age
#: of the last transaction it replayed. "Nothing to replay" is lag 0 however old that transaction is.
LAG_SQL = (
    "SELECT pg_is_in_recovery(), "
    "COALESCE(pg_last_wal_replay_lsn() >= %s::pg_lsn, false), "
    "EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8"
)


def configured() -> bool:
    return REPLICA in settings.DATABASES


def max_lag() -> float:
    return float(getattr(settings, "REPLICA_MAX_LAG_SECONDS", 5))


def measure_lag() -> float:
    """The replica's replay lag in seconds (0 when it has replayed all the primary has written); ``inf`` when it
    is not a standby (promoted, or not a replica at all: it no longer follows the primary) or never replayed.
    Raises ``DatabaseError`` when either server cannot answer."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        (primary_lsn,) = cursor.fetchone()
    with connections[REPLICA].cursor() as cursor:
        cursor.execute(LAG_SQL, [primary_lsn])
        in_recovery, caught_up, age = cursor.fetchone()
    if not in_recovery:
        return math.inf
    if caught_up:
        return 0.0
    return math.inf if age is None else max(float(age), 0.0)


class LagGuard:
    """Per process: is the replica fresh enough to read from? Asks at most once per ``CHECK_INTERVAL`` (once per
    ``RETRY_INTERVAL`` after an error); meanwhile every caller gets the last answer. A thread that finds another
    one asking does not wait for it."""

    def __init__(self, measure: Callable[[], float] = measure_lag, clock: Callable[[], float] = time.monotonic) -> None:
        self._measure = measure
        self._clock = clock
        self._lock = threading.Lock()
        self._next_check = -math.inf
        self.fresh = False
        self.lag: float | None = None  # the last measured lag; None when the replica did not answer

    def is_fresh(self) -> bool:
        if self._clock() < self._next_check or not self._lock.acquire(blocking=False):
            return self.fresh
        try:
            if self._clock() >= self._next_check:
                self._check()
            return self.fresh
        finally:
            self._lock.release()

    def _check(self) -> None:
        first, was_fresh, was_answering = self._next_check == -math.inf, self.fresh, self.lag is not None
        try:
            lag = self._measure()
        except Exception as error:  # whatever went wrong, the primary serves the page
            self.fresh, self.lag = False, None
            self._next_check = self._clock() + RETRY_INTERVAL
            _discard_replica_connection()
            if first or was_answering:  # once when it goes, not every RETRY_INTERVAL while it stays away
                unexpected = not isinstance(error, DatabaseError)
                level = logging.ERROR if unexpected else logging.WARNING
                log.log(level, "Replica unreachable, reading from the primary: %s", error, exc_info=unexpected)
            return
        self.lag, self.fresh = lag, lag <= max_lag()
        self._next_check = self._clock() + CHECK_INTERVAL
        if self.fresh and not was_fresh and not first:
            log.info("Replica %.1f s behind: reading from it again", lag)
        elif not self.fresh and (was_fresh or first):
            log.warning("Replica %.1f s behind (over %s s): reading from the primary", lag, max_lag())


def _discard_replica_connection() -> None:
    try:
        connections[REPLICA].close()
    except Exception:
        log.debug("closing the replica's connection failed", exc_info=True)


guard = LagGuard()


class _Choice:
    """One view call's answer, decided at its first routed read and kept for the rest of it."""

    __slots__ = ("alias",)

    def __init__(self) -> None:
        self.alias: str | None = None

    def decide(self) -> str:
        if self.alias is None:
            self.alias = REPLICA if configured() and guard.is_fresh() else DEFAULT_DB_ALIAS
        return self.alias


_choice: ContextVar[_Choice | None] = ContextVar("replica_tolerant", default=None)

V = TypeVar("V", bound=Callable[..., Any])


def replica_tolerant(view: V) -> V:
    """Mark a view whose reads of the casino's own models may come from the replica (GET and HEAD only): set for
    the view's call and for the streaming of its response. State the lag the page tolerates in docs/replica.md."""
    if iscoroutinefunction(view):

        @functools.wraps(view)
        async def async_view(request: Any, *args: Any, **kwargs: Any) -> Any:
            choice = _Choice() if request.method in SAFE_METHODS else None
            token = _choice.set(choice)
            try:
                response = await view(request, *args, **kwargs)
            finally:
                _choice.reset(token)
            return _within(response, choice)

        return async_view  # type: ignore[return-value]

    @functools.wraps(view)
    def sync_view(request: Any, *args: Any, **kwargs: Any) -> Any:
        choice = _Choice() if request.method in SAFE_METHODS else None
        token = _choice.set(choice)
        try:
            response = view(request, *args, **kwargs)
        finally:
            _choice.reset(token)
        return _within(response, choice)

    return sync_view  # type: ignore[return-value]


def _within(response: Any, choice: _Choice | None) -> Any:
    """What a response reads after the view returned, read from where the view read: a template response (the
    admin's pages) is rendered now, with the choice set (its form's choices are queries too); a streamed one (the
    CSV exports) reads as it is sent, so each step of its content runs with the choice set again."""
    if choice is None:
        return response
    if callable(getattr(response, "render", None)) and not getattr(response, "is_rendered", True):
        token = _choice.set(choice)
        try:
            response.render()
        finally:
            _choice.reset(token)
    elif getattr(response, "streaming", False):
        content = response.streaming_content
        response.streaming_content = _async_steps(content, choice) if response.is_async else _steps(content, choice)
    return response


def _steps(content: Iterator[bytes], choice: _Choice) -> Iterator[bytes]:
    iterator = iter(content)
    while True:
        token = _choice.set(choice)
        try:
            chunk = next(iterator)
        except StopIteration:
            return
        finally:
            _choice.reset(token)
        yield chunk


async def _async_steps(content: AsyncIterator[bytes], choice: _Choice) -> AsyncIterator[bytes]:
    iterator = aiter(content)
    while True:
        token = _choice.set(choice)
        try:
            chunk = await anext(iterator)
        except StopAsyncIteration:
            return
        finally:
            _choice.reset(token)
        yield chunk


def in_transaction(alias: str = DEFAULT_DB_ALIAS) -> bool:
    """Inside ``transaction.atomic`` (or with autocommit turned off) on ``alias``. A test case's own wrapping
    blocks do not count, as in Django's durable check: they stand for the autocommit a request has in production."""
    connection = connections[alias]
    if connection.connection is not None and not connection.autocommit:
        return not connection.atomic_blocks or any(
            not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks
        )
    return any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)


class ReplicaRouter:
    """The ``DATABASE_ROUTERS`` entry (settings list it only with ``DATABASE_REPLICA_URL``)."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str | None:
        if not configured():
            return None
        choice = _choice.get()
        meta = model._meta
        if choice is None or meta.app_label not in REPLICA_APPS or meta.label_lower in PRIMARY_ONLY:
            return DEFAULT_DB_ALIAS
        if in_transaction():
            return DEFAULT_DB_ALIAS
        return choice.decide()

    def db_for_write(self, model: type[Model], **hints: Any) -> str | None:
        return DEFAULT_DB_ALIAS if configured() else None

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool | None:
        return True if {obj1._state.db, obj2._state.db} <= {DEFAULT_DB_ALIAS, REPLICA, None} else None

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool | None:
        return db == DEFAULT_DB_ALIAS if configured() else None
