"""The ticker: one table's due steps, run one at a time (``table_step``) or all that are due (``table_run``).

Deadlines live in PostgreSQL (``Table.next_action_at``); ``table_step`` does at most one due transition
(``tables.services.transitions``) inside a transaction holding the table's row lock (``SKIP LOCKED``: a
concurrent step of the same table returns at once), and ``table_run`` holds a PostgreSQL advisory lock so
one runner per table works at a time across every worker (``runner_lock``: a session lock, or behind a
transaction-mode pooler a transaction's). An unexpected exception pauses the table
(``tables.services.controls.table_pause``); a database outage does not: nothing committed, the next tick
tries again. ``tables.tasks`` runs these from Celery.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from tables.models import Round, Table
from tables.services.controls import table_close_due, table_pause, table_reopen_due
from tables.services.dealing import dealing_step
from tables.services.transitions import (
    live_round,
    round_close,
    round_finish,
    round_open,
    round_start_dealing,
    set_next_action,
    shoe_replace,
)

logger = logging.getLogger(__name__)

# pg_try_advisory_lock(namespace, table_id): one runner per table across every worker.
ADVISORY_NAMESPACE = 0x42AC
MAX_STEPS_PER_RUN = 20


def _step(table_id: int, now: datetime) -> str | None:
    table = Table.objects.select_for_update(skip_locked=True).filter(pk=table_id).first()
    if table is None or table.status == Table.Status.PAUSED:
        return None
    if table.next_action_at is not None and table.next_action_at > now:
        return None
    round_ = live_round(table_id)
    if round_ is None:
        if table.status == Table.Status.CLOSED and table.closed_by == Table.ClosedBy.HOURS:
            if table_reopen_due(table_id=table_id, now=now):
                return "reopened"
            set_next_action(table_id, table.next_opening(now))
            return None
        if table.status != Table.Status.OPEN:
            set_next_action(table_id, None)
            return None
        if table_close_due(table_id=table_id, now=now):  # an operator's close, or outside its opening hours
            return "closed_table"
        if round_open(table_id=table_id, now=now) is not None:
            return "opened"
        if shoe_replace(table_id=table_id, now=now) is not None:
            return "shuffled"
        return None
    if round_.state == Round.State.BETTING:
        if round_.closes_at > now:
            set_next_action(table_id, round_.closes_at)
            return None
        return "closed" if round_close(round_id=round_.pk, now=now) else None
    if round_.state == Round.State.CLOSED:
        return "dealing" if round_start_dealing(round_id=round_.pk, now=now) else None
    if round_.state == Round.State.DEALING:  # by the table's card source: the server's shoe or a live dealer
        return dealing_step(table=table, round_=round_, now=now)
    if round_.state == Round.State.RESULT:
        return "settled" if round_finish(round_id=round_.pk, now=now) else None
    return None  # paused: waits for the operator


def table_step(*, table_id: int, now: datetime | None = None) -> str | None:
    """Do at most one due step for one table; return its name (``opened``, ``shuffled``, ``closed``,
    ``dealing``, ``dealt``, ``result``,
    ``paused`` (a live dealer gone silent), ``settled``, ``closed_table``, ``reopened``, ``faulted``) or None when
    nothing was due.

    Safe to call any number of times from any number of processes.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            return _step(table_id, now)
    except (OperationalError, InterfaceError):
        raise  # the database, not the game: nothing committed, the next tick retries
    except Exception as exc:
        logger.exception("table %s: fault while advancing; pausing it", table_id)
        table_pause(table_id=table_id, reason=f"fault: {type(exc).__name__}: {exc}"[:200], fault=True, now=now)
        return "faulted"


def table_run(*, table_id: int, max_steps: int = MAX_STEPS_PER_RUN) -> tuple[list[str], datetime | None]:
    """Advance one table through every step due now; return the steps and when it is next due.

    Holds the table's runner lock for the run, so one runner per table at a time across all workers
    and the events of consecutive steps leave in order. Another runner holding it → ``([], None)``.
    """
    with runner_lock(table_id) as held:
        if not held:
            return [], None
        steps: list[str] = []
        while len(steps) < max_steps:
            step = table_step(table_id=table_id)
            if step is not None:
                steps.append(step)
            next_at = Table.objects.filter(pk=table_id).values_list("next_action_at", flat=True).first()
            # Stop when nothing was due, at a fault, or when the step set a deadline still ahead: asking for a
            # step then would be a transaction that finds nothing (a tenth of a run's time).
            if step is None or step == "faulted" or (next_at is not None and next_at > timezone.now()):
                return steps, next_at
        return steps, next_at


@contextmanager
def runner_lock(table_id: int) -> Iterator[bool]:
    """The table's runner lock, held for the block: yields whether this runner got it.

    On a connection of its own (the default) it is a session advisory lock, and every step commits as it is
    done. Behind a transaction-mode pooler (``settings.DB_TRANSACTION_POOLING``) the session is not ours: a
    session lock would stay on whichever server connection took it (the unlock runs on another), and the next
    client handed that connection would take it again, lock and all. There the block is one transaction holding
    ``pg_try_advisory_xact_lock``, each step a savepoint inside it: the run's steps commit together (a database
    error mid-run undoes the earlier ones too; the next tick does them again), and their events leave together,
    in order, after that commit. The lock goes with the commit, just before those events are sent: a runner
    taking it in that moment with a step already due could send its own first (the session lock waits)."""
    if settings.DB_TRANSACTION_POOLING:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [ADVISORY_NAMESPACE, table_id])
                held = bool(cursor.fetchone()[0])
            yield held
        return
    if not _try_lock(table_id):
        yield False
        return
    try:
        yield True
    finally:
        _unlock(table_id)


def _try_lock(table_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_NAMESPACE, table_id])
        return bool(cursor.fetchone()[0])


def _unlock(table_id: int) -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_NAMESPACE, table_id])
    except (OperationalError, InterfaceError):  # connection gone: the lock went with it
        logger.warning("table %s: advisory unlock failed", table_id, exc_info=True)
