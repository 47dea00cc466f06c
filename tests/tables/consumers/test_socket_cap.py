"""A cap on open sockets per player and per address (tables.socketcap), counted in Redis with entries that
expire: the next socket gets a ``too_many_sockets`` error frame and the close 4430."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from baccarat_site.redis_client import redis_client
from tables import socketcap
from tables.consumers import CLOSE_TOO_MANY_SOCKETS
from tables.routing import websocket_urlpatterns
from tests.tables.consumers.test_table_consumer import signed_in_session
from tests.tables.services.rounds_kit import fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)


@pytest.fixture
def caps(settings):
    settings.WS_MAX_SOCKETS_PER_PLAYER = 2
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 3
    return settings


async def open_socket(
    path: str, *, address: str = "203.0.113.7", user=None, session=None, forwarded: str | None = None
) -> WebsocketCommunicator:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded is not None else []
    communicator = WebsocketCommunicator(ROUTER, path, headers=headers)
    communicator.scope["client"] = (address, 40000)
    if user is not None:
        communicator.scope["user"] = user
        communicator.scope["session"] = session
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def refusal(communicator: WebsocketCommunicator) -> tuple[dict, int | None]:
    """The error frame and the close code of a refused socket."""
    frame = await communicator.receive_json_from(timeout=5)
    close = await communicator.receive_output(timeout=5)
    assert close["type"] == "websocket.close"
    return frame, close.get("code")


async def test_a_player_past_the_cap_is_refused_with_4430_and_gets_a_place_back_when_a_socket_closes(caps):
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    session = await database_sync_to_async(signed_in_session)(alice)
    path = f"/ws/tables/{table.pk}/"
    first = await open_socket(path, user=alice, session=session, address="198.51.100.1")
    second = await open_socket("/ws/lobby/", user=alice, session=session, address="198.51.100.2")  # lobby counts too
    assert (await first.receive_json_from(timeout=5))["type"] == "snapshot"
    assert (await second.receive_json_from(timeout=5))["type"] == "snapshot"

    third = await open_socket(path, user=alice, session=session, address="198.51.100.3")
    frame, code = await refusal(third)
    assert code == CLOSE_TOO_MANY_SOCKETS == 4430
    assert frame["type"] == "error"
    assert frame["code"] == "too_many_sockets"
    assert "player" in frame["detail"]
    await third.disconnect()

    await first.disconnect()
    again = await open_socket(path, user=alice, session=session, address="198.51.100.4")
    assert (await again.receive_json_from(timeout=5))["type"] == "snapshot"
    for communicator in (second, again):
        await communicator.disconnect()


async def test_an_address_past_the_cap_is_refused_whoever_is_signed_in_and_another_address_is_not(caps):
    table = await database_sync_to_async(fast_table)()
    path = f"/ws/tables/{table.pk}/"
    watchers = [await open_socket(path) for _ in range(3)]
    for watcher in watchers:
        assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"
    refused = await open_socket("/ws/lobby/")
    frame, code = await refusal(refused)
    assert (frame["code"], code) == ("too_many_sockets", 4430)
    assert "address" in frame["detail"]
    elsewhere = await open_socket(path, address="192.0.2.44")
    assert (await elsewhere.receive_json_from(timeout=5))["type"] == "snapshot"
    for communicator in (*watchers, refused, elsewhere):
        await communicator.disconnect()


async def test_behind_a_trusted_proxy_sockets_are_counted_per_client_and_a_spoofed_header_is_not(caps):
    caps.TRUSTED_PROXIES = ["10.0.0.10"]
    table = await database_sync_to_async(fast_table)()
    path = f"/ws/tables/{table.pk}/"
    proxied = [await open_socket(path, address="10.0.0.10", forwarded="203.0.113.7") for _ in range(3)]
    for watcher in proxied:
        assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"
    refused = await open_socket(path, address="10.0.0.10", forwarded="203.0.113.7")
    assert (await refusal(refused))[1] == CLOSE_TOO_MANY_SOCKETS
    # another client through the same proxy has its own count
    other = await open_socket(path, address="10.0.0.10", forwarded="198.51.100.2")
    assert (await other.receive_json_from(timeout=5))["type"] == "snapshot"
    assert redis_client().zcard(socketcap._keys(None, "10.0.0.10")[1]) == 0
    # straight to daphne, a claimed address is not believed: these count as 192.0.2.5
    direct = [await open_socket(path, address="192.0.2.5", forwarded=f"198.51.100.{n}") for n in range(10, 13)]
    for watcher in direct:
        assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"
    spoofer = await open_socket(path, address="192.0.2.5", forwarded="198.51.100.99")
    assert (await refusal(spoofer))[1] == CLOSE_TOO_MANY_SOCKETS
    for communicator in (*proxied, refused, other, *direct, spoofer):
        await communicator.disconnect()


async def test_a_crashed_process_leaks_no_count_entries_expire_and_so_do_the_keys(caps):
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    session = await database_sync_to_async(signed_in_session)(alice)
    key = socketcap._keys(alice.pk, None)[0]
    # Two sockets of a process that died without closing them: their entries' time has run out.
    redis_client().zadd(key, {"dead-1": time.time() - 1, "dead-2": time.time() - 5})
    path = f"/ws/tables/{table.pk}/"
    alive = await open_socket(path, user=alice, session=session)
    assert (await alive.receive_json_from(timeout=5))["type"] == "snapshot"
    members = redis_client().zrange(key, 0, -1)
    assert len(members) == 1
    assert b"dead-1" not in members
    assert 0 < redis_client().ttl(key) <= socketcap.TTL_SECONDS
    await alive.disconnect()
    for _ in range(50):  # a closed socket gives its place back at once (SocketSlot.drop)
        if redis_client().zcard(key) == 0:
            break
        await asyncio.sleep(0.05)
    assert redis_client().zcard(key) == 0


async def test_one_keeper_per_process_refreshes_every_socket_s_place_and_ends_with_the_last(caps):
    """Not a task and a timer per socket: the loop's SlotKeeper holds every place and refreshes them together."""
    table = await database_sync_to_async(fast_table)()
    path = f"/ws/tables/{table.pk}/"
    addresses = ["198.51.100.10", "198.51.100.11", "198.51.100.12"]
    sockets = [await open_socket(path, address=address) for address in addresses]
    for communicator in sockets:
        assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    keeper = socketcap.SlotKeeper.of_loop()
    assert keeper is not None
    assert len(keeper.slots) == 3
    assert keeper.task is not None
    assert not keeper.task.done()
    keys = [socketcap._keys(None, address)[1] for address in addresses]
    soon = time.time() + 1  # about to expire, as if no refresh had come for TTL_SECONDS
    for key in keys:
        (member,) = redis_client().zrange(key, 0, -1)
        redis_client().zadd(key, {member: soon})
    await keeper.refresh()
    for key in keys:
        ((_, expires),) = redis_client().zrange(key, 0, -1, withscores=True)
        assert expires > time.time() + socketcap.TTL_SECONDS - 5
        assert 0 < redis_client().ttl(key) <= socketcap.TTL_SECONDS
    # A place given back while a refresh was under way is not brought back by it.
    gone = redis_client().zrange(keys[0], 0, -1)[0]
    redis_client().zrem(keys[0], gone)
    await keeper.refresh()
    assert redis_client().zcard(keys[0]) == 0
    task = keeper.task
    for communicator in sockets:
        await communicator.disconnect()
    assert not keeper.slots
    assert keeper.task is None
    await asyncio.sleep(0)
    assert task.cancelled() or task.done()
    for _ in range(50):
        if not any(redis_client().zcard(key) for key in keys):
            break
        await asyncio.sleep(0.05)
    assert not any(redis_client().zcard(key) for key in keys)
