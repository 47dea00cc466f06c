"""The dealer's console presence socket, ws/dealer/tables/<id>/ (tables/dealer_consumers.py): a dealer gets in,
a player is refused at the handshake; connecting marks the table attended, closing marks the console lost."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from baccarat_site import roles
from tables.dealer_consumers import CLOSE_NOT_DEALER
from tables.models import Table
from tables.routing import websocket_urlpatterns
from tests.factories import make_staff, make_table, make_user

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)


def _dealer():
    return make_staff("dora", roles.DEALERS)


def _socket(table_id: int, user) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(ROUTER, f"/ws/dealer/tables/{table_id}/")
    communicator.scope["user"] = user
    return communicator


async def test_a_dealer_connects_pings_and_a_disconnect_marks_the_console_lost():
    table = await database_sync_to_async(make_table)("Live", dealing=Table.Dealing.LIVE)
    dealer = await database_sync_to_async(_dealer)()
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(dealer=dealer)
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(console_lost_at="2026-01-01T00:00:00Z")

    socket = _socket(table.pk, dealer)
    connected, _ = await socket.connect(timeout=5)
    assert connected
    hello = await socket.receive_json_from(timeout=5)
    assert hello["type"] == "hello"
    assert hello["table_id"] == table.pk
    lost = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)()
    assert lost is None  # attended again

    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "pong"
    await socket.send_json_to({"type": "deal"})
    error = await socket.receive_json_from(timeout=5)
    assert error["type"] == "error"
    assert error["code"] == "unknown_frame"

    await socket.disconnect()
    lost = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)()
    assert lost is not None


async def test_a_second_console_closing_is_answered_by_the_first_ones_ping():
    """Two consoles of one table: one closes (the table is marked lost), the other's next ping marks it attended
    again, within the grace, so the round it deals is not paused."""
    table = await database_sync_to_async(make_table)("Live", dealing=Table.Dealing.LIVE)
    dealer = await database_sync_to_async(_dealer)()
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(dealer=dealer)
    first, second = _socket(table.pk, dealer), _socket(table.pk, dealer)
    for socket in (first, second):
        assert (await socket.connect(timeout=5))[0]
        await socket.receive_json_from(timeout=5)
    await second.disconnect()
    assert await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)() is not None
    await first.send_json_to({"type": "ping"})
    assert (await first.receive_json_from(timeout=5))["type"] == "pong"
    assert await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)() is None
    await first.disconnect()


async def test_a_player_and_a_signed_out_visitor_are_refused():
    table = await database_sync_to_async(make_table)("Live", dealing=Table.Dealing.LIVE)
    player = await database_sync_to_async(make_user)("pat")
    for user in (player, None):
        socket = _socket(table.pk, user)
        if user is None:
            socket.scope.pop("user")
        connected, code = await socket.connect(timeout=5)
        assert not connected
        assert code == CLOSE_NOT_DEALER
    lost = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)()
    assert lost is None  # a refused socket says nothing about the console


async def test_only_the_tables_dealer_on_shift_or_a_supervisor_holds_its_console_socket():
    """A dealer of another table (or one who has not taken this table's shift) is refused at the handshake: opening
    and closing this table's console socket would otherwise pause its live round."""
    table = await database_sync_to_async(make_table)("Live", dealing=Table.Dealing.LIVE)
    on_shift = await database_sync_to_async(_dealer)()
    other = await database_sync_to_async(make_staff)("otto", roles.DEALERS)
    boss = await database_sync_to_async(make_staff)("sam", roles.SUPERVISORS)
    operator = await database_sync_to_async(make_staff)("tom", roles.TABLE_OPERATORS)
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(dealer=on_shift)
    for user in (other, operator):
        connected, code = await _socket(table.pk, user).connect(timeout=5)
        assert not connected
        assert code == CLOSE_NOT_DEALER
    assert await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).console_lost_at)() is None
    for user in (on_shift, boss):
        socket = _socket(table.pk, user)
        assert (await socket.connect(timeout=5))[0]
        await socket.disconnect()
