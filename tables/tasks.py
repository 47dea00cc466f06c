"""Celery tasks that drive the tables. The deadlines are in PostgreSQL; these only say "look now".

- ``tables_sweep`` (beat, ``advance-tables``, every ``TICK_SECONDS``): queue ``table_advance`` for every
  table whose ``next_action_at`` has passed (or that is open and has never started) and has no advance pending,
  and flush the throttled ``bets.totals``. This is the safety net: a lost task, a dead worker or a restarted beat
  is caught up within ``PENDING_GRACE_SECONDS`` and a tick.
- ``table_advance(table_id)``: run every step due now for one table (``tables.services.ticker.table_run``,
  one runner per table through an advisory lock), then queue itself for the table's next deadline
  (``eta``), so windows close and cards fall on time rather than on the next tick.

An advance is *pending* for a table from when it is queued until its ``eta`` plus ``PENDING_GRACE_SECONDS`` (a key
in Redis holding that eta, expiring then). The sweep queues none for a due table whose pending advance is already
due (its eta has come: it is queued, running, or a little late), and does queue one when the table became due before
the pending advance's eta (a dealer's scan, a resume or a cancel sets the deadline to now; the pending advance would
wait for the old one). Without this the sweep queued a second advance for every table whose own follow-up had not
finished by the tick, and under load half the worker's tasks found nothing due (bench/RESULTS.md,
tables_per_worker). A follow-up lost with a dead worker is queued again by the sweep once its key expires.

- ``risk_scan(round_id)``: the round's risk alerts (``tables.services.risk``), queued by the round's closing and
  its settlement.

All are safe to run twice: a step that is not due, or was already done, is a no-op.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from baccarat_site.celery import app
from baccarat_site.redis_client import redis_client
from tables import events
from tables.selectors.tables import due_table_ids
from tables.services import risk, ticker

# A queued advance older than this is pointless: the beat will have queued a fresh one.
ADVANCE_EXPIRES_SECONDS = 30
# How long past its eta a queued advance still counts as pending: a worker as far behind as this gets a second one.
PENDING_GRACE_SECONDS = 2.0

logger = logging.getLogger(__name__)


def _pending_key(table_id: int) -> str:
    # The channel-layer prefix keeps test runs and deployments sharing one Redis apart (as tables.events does).
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:tables:advance-pending:{table_id}"


def _pending_ms(eta: datetime | None, now: datetime) -> int:
    ahead = (eta - now).total_seconds() if eta is not None else 0.0
    return max(1, int(1000 * (max(ahead, 0.0) + PENDING_GRACE_SECONDS)))


def _epoch_ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


# KEYS: the due tables' pending keys; ARGV[1]: now (epoch ms), ARGV[2]: how long a claim lasts (ms). For each table:
# 0 when an advance is pending whose eta has come (leave it), else 1 after marking one pending now.
_CLAIM_SCRIPT = """
local claimed = {}
for i, key in ipairs(KEYS) do
  local eta = redis.call('GET', key)
  if eta and tonumber(eta) <= tonumber(ARGV[1]) then
    claimed[i] = 0
  else
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    claimed[i] = 1
  end
end
return claimed
"""
_scripts: dict[int, object] = {}  # id(client) → the registered script (one client per process and URL)


def _claim(table_ids: Sequence[int], now: datetime) -> list[int]:
    """The due tables among these with no advance pending that is due too, each now marked pending (one Redis round
    trip, atomic: two beats' sweeps at once claim a table once). With Redis unreachable, all of them: a duplicate
    advance is harmless, a missing one stalls a table."""
    if not table_ids:
        return []
    try:
        client = redis_client()
        script = _scripts.get(id(client))
        if script is None:
            script = _scripts[id(client)] = client.register_script(_CLAIM_SCRIPT)
        claimed = script(  # type: ignore[operator]
            keys=[_pending_key(table_id) for table_id in table_ids], args=[_epoch_ms(now), _pending_ms(None, now)]
        )
        return [table_id for table_id, took in zip(table_ids, claimed, strict=True) if took]
    except Exception:
        logger.warning("advance bookkeeping unavailable; queuing every due table", exc_info=True)
        return list(table_ids)


def _mark_pending(table_id: int, eta: datetime | None, now: datetime) -> None:
    """The table's advance is pending until ``eta`` (and the grace), or with no eta, none is."""
    try:
        if eta is None:
            redis_client().delete(_pending_key(table_id))
        else:
            redis_client().set(_pending_key(table_id), _epoch_ms(eta), px=_pending_ms(eta, now))
    except Exception:  # the sweep then queues a duplicate, or waits out the grace
        logger.warning("advance bookkeeping unavailable for table %s", table_id, exc_info=True)


@app.task(name="tables.tasks.tables_sweep", ignore_result=True)
def tables_sweep() -> int:
    """Beat tick: queue an advance for every due table with none pending; returns how many were queued."""
    now = timezone.now()
    queued = _claim(due_table_ids(now=now), now)
    for table_id in queued:
        table_advance.apply_async(args=[table_id], expires=ADVANCE_EXPIRES_SECONDS)
    events.bets_totals_flush()
    return len(queued)


@app.task(name="tables.tasks.table_advance", ignore_result=True)
def table_advance(table_id: int) -> list[str]:
    """Advance one table through every due step; chain to its next deadline when it moved."""
    steps, next_at = ticker.table_run(table_id=table_id)
    chained = next_at if steps else None  # nothing done, nothing chained: duplicates die out
    _mark_pending(table_id, chained, timezone.now())  # without a chained one, none is pending: the sweep may queue
    if chained is not None:
        table_advance.apply_async(
            args=[table_id], eta=chained, expires=chained + timedelta(seconds=ADVANCE_EXPIRES_SECONDS)
        )
    return steps


@app.task(name="tables.tasks.risk_scan", ignore_result=True)
def risk_scan(round_id: int) -> int:
    """Raise the risk alerts of one round (``tables.services.risk``), queued after its betting closes and after
    it settles; safe to run twice (each alert is raised once)."""
    return risk.risk_scan_round(round_id=round_id)
