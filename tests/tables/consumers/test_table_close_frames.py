"""A table's socket carries the close and reopen to its players (table.closing, table.closed, table.reopened), in
fixed public words; a retired table's socket cannot be opened."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from tables.consumers import CLOSE_NOT_FOUND
from tables.routing import websocket_urlpatterns
from tables.services import controls
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)
REASON = "Pit boss says: low takings"


async def frames_until(communicator: WebsocketCommunicator, last_type: str) -> list[dict]:
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=10)
        frames.append(frame)
        if frame["type"] == last_type:
            return frames


async def test_a_table_socket_is_told_of_the_close_and_the_reopen_without_the_operators_reason():
    table = await database_sync_to_async(fast_table)("Closing")
    clock = Clock()
    await database_sync_to_async(drive_to_state)(table, clock, "betting")
    socket = WebsocketCommunicator(ROUTER, f"/ws/tables/{table.pk}/")
    assert (await socket.connect(timeout=5))[0]
    assert (await socket.receive_json_from(timeout=5))["type"] == "snapshot"

    await database_sync_to_async(controls.table_close)(table_id=table.pk, when="round", reason=REASON)
    closing = (await frames_until(socket, "table.closing"))[-1]
    assert (closing["close_after"], closing["notice"]) == ("round", "closing_after_round")
    assert closing["reason"] == "Closing after this round"

    await database_sync_to_async(drive)(table, clock, lambda: type(table).objects.get(pk=table.pk).status == "closed")
    closed = (await frames_until(socket, "table.closed"))[-1]
    assert (closed["notice"], closed["reason"], closed["by"], closed["opens_at"]) == (
        "closed",
        "Closed",
        "operator",
        None,
    )

    await database_sync_to_async(controls.table_reopen)(table_id=table.pk, reason=REASON)
    reopened = (await frames_until(socket, "table.reopened"))[-1]
    assert reopened["reason"] is None
    await socket.disconnect()


async def test_a_retired_tables_socket_is_refused():
    table = await database_sync_to_async(fast_table)("Gone")
    await database_sync_to_async(controls.table_close)(table_id=table.pk, when="round", reason="x")
    await database_sync_to_async(controls.table_retire)(table_id=table.pk, reason="y")
    socket = WebsocketCommunicator(ROUTER, f"/ws/tables/{table.pk}/")
    connected, code = await socket.connect(timeout=5)
    assert (connected, code) == (False, CLOSE_NOT_FOUND)
    await socket.disconnect()
