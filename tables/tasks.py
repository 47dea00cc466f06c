"""Celery tasks that drive the tables. The deadlines are in PostgreSQL; these only say "look now".

- ``tables_sweep`` (beat, ``advance-tables``, every ``TICK_SECONDS``): queue ``table_advance`` for every
  table whose ``next_action_at`` has passed (or that is open and has never started), and flush the
  throttled ``bets.totals``. This is the safety net: a lost task, a dead worker or a restarted beat is
  caught up within one tick.
- ``table_advance(table_id)``: run every step due now for one table (``tables.services.ticker.table_run``,
  one runner per table through an advisory lock), then queue itself for the table's next deadline
  (``eta``), so windows close and cards fall on time rather than on the next tick.

- ``risk_scan(round_id)``: the round's risk alerts (``tables.services.risk``), queued by the round's closing and
  its settlement.

All are safe to run twice: a step that is not due, or was already done, is a no-op.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from baccarat_site.celery import app
from tables import events
from tables.selectors.tables import due_table_ids
from tables.services import risk, ticker

# A queued advance older than this is pointless: the beat will have queued a fresh one.
ADVANCE_EXPIRES_SECONDS = 30


@app.task(name="tables.tasks.tables_sweep", ignore_result=True)
def tables_sweep() -> int:
    """Beat tick: queue an advance for every due table; returns how many were queued."""
    due = due_table_ids(now=timezone.now())
    for table_id in due:
        table_advance.apply_async(args=[table_id], expires=ADVANCE_EXPIRES_SECONDS)
    events.bets_totals_flush()
    return len(due)


@app.task(name="tables.tasks.table_advance", ignore_result=True)
def table_advance(table_id: int) -> list[str]:
    """Advance one table through every due step; chain to its next deadline when it moved."""
    steps, next_at = ticker.table_run(table_id=table_id)
    if steps and next_at is not None:
        table_advance.apply_async(
            args=[table_id], eta=next_at, expires=next_at + timedelta(seconds=ADVANCE_EXPIRES_SECONDS)
        )
    return steps


@app.task(name="tables.tasks.risk_scan", ignore_result=True)
def risk_scan(round_id: int) -> int:
    """Raise the risk alerts of one round (``tables.services.risk``), queued after its betting closes and after
    it settles; safe to run twice (each alert is raised once)."""
    return risk.risk_scan_round(round_id=round_id)
