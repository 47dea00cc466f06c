"""A per-table sequence on the frames of a table, so a browser can put them in order.

Every table event takes the next number of its table's counter in Redis as it leaves (after its
transaction committed); a snapshot carries the counter's value read *before* the database read it comes
from. So an event numbered at most a snapshot's ``seq`` is already in that snapshot (the browser drops
it), and a snapshot numbered below an event the browser already applied is stale (it asks again). The
counter lives in Redis, which may restart and forget it: ``epoch`` (a random id made with the counter)
tells the browser that numbering started over.
"""

from __future__ import annotations

import secrets

from django.conf import settings

from baccarat_site.redis_client import redis_client


def _keys(table_id: int) -> tuple[str, str]:
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"].get("prefix", "asgi")
    return f"{prefix}:table-seq-epoch", f"{prefix}:table-seq:{table_id}"


def _read(table_id: int, *, advance: bool) -> tuple[str, int]:
    epoch_key, seq_key = _keys(table_id)
    pipe = redis_client().pipeline(transaction=True)
    pipe.set(epoch_key, secrets.token_hex(8), nx=True)
    pipe.get(epoch_key)
    if advance:
        pipe.incr(seq_key)
    else:
        pipe.get(seq_key)
    _created, epoch, seq = pipe.execute()
    return epoch.decode(), int(seq or 0)


def seq_next(table_id: int) -> tuple[str, int]:
    """Number the next event of this table: (epoch, seq)."""
    return _read(table_id, advance=True)


def seq_now(table_id: int) -> tuple[str, int]:
    """The last number given to an event of this table (0 before the first): read it before a snapshot."""
    return _read(table_id, advance=False)
