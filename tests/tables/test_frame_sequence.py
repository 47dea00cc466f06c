"""Per-table frame sequence (tables/sequence.py) and snapshot-first delivery (tables/consumers.py): a socket's
first frame is its snapshot, and the events that follow it are exactly those numbered above it, in order."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings

from baccarat_site.redis_client import redis_client
from tables import events, hub, sequence
from tables.routing import websocket_urlpatterns
from tests.tables.services.rounds_kit import fast_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_events_are_numbered_per_table_and_a_redis_restart_starts_a_new_epoch():
    first = sequence.seq_now(9001)
    assert first[1] == 0
    assert sequence.seq_next(9001) == (first[0], 1)
    assert sequence.seq_next(9001) == (first[0], 2)
    assert sequence.seq_next(9002) == (first[0], 1)  # another table, its own numbers
    assert sequence.seq_now(9001) == (first[0], 2)
    # Redis forgot everything (a restart): numbering starts over under a new epoch.
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    redis_client().delete(f"{prefix}:table-seq-epoch", f"{prefix}:table-seq:9001")
    epoch, seq = sequence.seq_next(9001)
    assert (seq, epoch != first[0]) == (1, True)


async def test_the_snapshot_goes_first_and_events_follow_it_numbered_above_it(monkeypatch):
    table = await database_sync_to_async(fast_table)()
    reading = threading.Event()
    release = threading.Event()
    real_snapshot = hub.table_snapshot
    released = []

    def slow_snapshot(table_id):
        reading.set()
        released.append(release.wait(10))  # events are sent while the snapshot is being read
        return real_snapshot(table_id)

    monkeypatch.setattr(hub, "table_snapshot", slow_snapshot)

    def send(n: int) -> None:
        events.send_now(events.table_group(table.pk), {"type": "table.paused", "table_id": table.pk, "reason": f"{n}"})

    await database_sync_to_async(send)(0)  # before the socket: in no frame of it
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table.pk}/")
    connecting = asyncio.ensure_future(communicator.connect(timeout=10))
    await asyncio.get_running_loop().run_in_executor(None, reading.wait, 10)
    # From a thread of their own: the snapshot holds the one thread database_sync_to_async runs on, so sends
    # queued there would only go once the snapshot was read (after its 10 s wait ran out), never during it.
    for n in (1, 2, 3):
        await asyncio.get_running_loop().run_in_executor(None, send, n)
    await asyncio.sleep(0.3)  # the hub has them; the socket's snapshot is not out yet
    release.set()
    assert (await connecting)[0]
    frames = [await communicator.receive_json_from(timeout=5) for _ in range(4)]
    assert released == [True], "the events were not sent while the snapshot was being read"
    assert frames[0]["type"] == "snapshot"
    snapshot = frames[0]
    assert isinstance(snapshot["seq"], int)
    assert snapshot["epoch"]
    later = frames[1:]
    assert [f["reason"] for f in later] == ["1", "2", "3"]
    assert all(f["epoch"] == snapshot["epoch"] and f["seq"] > snapshot["seq"] for f in later)
    assert [f["seq"] for f in later] == sorted(f["seq"] for f in later)
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()
