"""Events to browsers through the Channels layer, from synchronous code, after the transaction that made them.

The part every app shares: the per-process sender loop (``run_async``), the ``server_time`` stamp, a player's
personal group ``user_<id>`` and sending to a group after commit. A table's own frames go through
``tables.events``, which numbers them (``epoch`` / ``seq``) on top of this; the accounts send here (a sign-out's
``session.ended`` to ``user_<id>``) without knowing the tables.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any

from channels.layers import get_channel_layer
from django.db import transaction

from baccarat_site.clock import server_time

# How long synchronous code waits for a send before giving up (the event is then lost; the next
# snapshot a browser asks for has the state).
SEND_TIMEOUT_SECONDS = 10.0


def user_group(user_id: int) -> str:
    """A player's personal group: every socket they have open, whatever the table."""
    return f"user_{user_id}"


_sender: tuple[int, asyncio.AbstractEventLoop] | None = None
_sender_lock = threading.Lock()


def _sender_loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for channel-layer sends from synchronous code, on a daemon thread
    (made again after a fork: Celery's prefork children each get their own)."""
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid() or _sender[1].is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="channel-layer-sender", daemon=True).start()
            _sender = (os.getpid(), loop)
        return _sender[1]


def run_async(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coroutine`` from synchronous code and return its result.

    Every call runs on one long-lived loop per process, so the channel layer's Redis connections are
    made once and reused. (``async_to_sync`` called where no loop runs, as in a Celery worker, makes
    a new event loop, and with it a new Redis connection, for every event: about 3 ms each.)
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coroutine.close()
        raise RuntimeError("run_async() is for synchronous code; await the coroutine instead")
    return asyncio.run_coroutine_threadsafe(coroutine, _sender_loop()).result(SEND_TIMEOUT_SECONDS)


def stamped(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with ``server_time``: when it left, after its transaction committed."""
    return {**event, "server_time": server_time()}


def send_now(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` (a dict with ``type``) to ``group`` immediately, stamped with ``server_time``. Not for a
    table's group: its frames are numbered, ``tables.events.send_now``."""
    layer = get_channel_layer()
    if layer is not None:
        run_async(layer.group_send(group, stamped(event)))


def send_on_commit(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the surrounding transaction commits (at once outside one).

    Best effort: the state is committed whatever happens to its announcement, so a failed send is
    logged and never turns into a fault of the step that committed (browsers resync from the next
    snapshot).
    """
    transaction.on_commit(lambda: send_now(group, event), robust=True)
