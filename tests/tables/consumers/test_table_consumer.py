"""ws/tables/<id>/ through Channels' WebsocketCommunicator, on the real Redis channel layer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from baccarat_site.asgi import application
from tables import hub
from tables.hub import TableHub
from tables.models import Round
from tables.routing import websocket_urlpatterns
from tables.services import controls
from tests.tables.services.rounds_kit import (
    Clock,
    balance_of,
    drive,
    drive_to_state,
    fast_table,
    latest_round,
    make_player,
    place,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)
# A bet is judged at ``timezone.now()`` (tables.services.placement), the ticker at the rounds kit's Clock (here
# ``table_clock``, which ``drive`` jumps to every deadline). A test that bets holds the fake clock (the ``clock``
# fixture, tests/clock.py) at the table clock's start, ``with clock.frozen_at(table_clock.now):``, from the drive
# that opens the round (the kit opens a new table's first round there, without a jump) until its bets are
# answered: the round's opening, its events' server_time and the bets read one moment, and the window is still
# open however long connecting, the snapshot and the session check take on a loaded machine. The monkeypatched
# ``timezone.now`` is process-wide, so the consumer's database work (database_sync_to_async's thread) reads it
# too. Afterwards the clock is real again, later than that moment, so server_time stays in order.
BETTING_SECONDS = 15


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@contextlib.asynccontextmanager
async def seated_at_betting(clock, balance: str, **table_fields: Any) -> AsyncIterator[tuple[Any, ...]]:
    """(table, alice, round, her socket, the table clock): Alice, holding ``balance``, on a socket at a table whose
    first round is taking bets; the fake clock held at the table clock's start for the block (see BETTING_SECONDS),
    her snapshot already read."""
    table = await database_sync_to_async(fast_table)(**{"betting_seconds": BETTING_SECONDS, **table_fields})
    alice = await database_sync_to_async(make_player)("alice", balance)
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        communicator = await connect(table.pk, user=alice)
        await communicator.receive_json_from(timeout=5)
        yield table, alice, round_, communicator, table_clock


def signed_in_session(user) -> SessionBase:
    """A real session signing ``user`` in, as the login page leaves it (the socket re-reads it before a bet)."""
    client = Client()
    client.force_login(user)
    return SessionStore(client.cookies["sessionid"].value)


async def connect(table_id: int, user=None, app=ROUTER, headers=None, session=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(app, f"/ws/tables/{table_id}/", headers=headers or [])
    if user is not None:
        communicator.scope["user"] = user
        communicator.scope["session"] = session or await database_sync_to_async(signed_in_session)(user)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def frames_until(communicator: WebsocketCommunicator, last_type: str, timeout: float = 10) -> list[dict]:
    """The frames up to the first ``last_type``. An ``error`` frame on the way fails at once, showing the error,
    rather than being passed over while the wait runs out."""
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        frames.append(frame)
        if frame["type"] == last_type:
            return frames
        assert frame["type"] != "error", f"an error frame while waiting for {last_type!r}: {frame}"


async def error_for(communicator: WebsocketCommunicator, text: str | None = None, data: bytes | None = None) -> dict:
    if data is not None:
        await communicator.send_to(bytes_data=data)
    else:
        await communicator.send_to(text_data=text)
    return await communicator.receive_json_from(timeout=5)


async def test_a_watcher_gets_a_snapshot_with_server_time_on_connect():
    table = await database_sync_to_async(fast_table)()
    table_clock = Clock()
    round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")

    communicator = await connect(table.pk)
    snapshot = await communicator.receive_json_from(timeout=5)

    assert snapshot["type"] == "snapshot"
    assert snapshot["table"]["id"] == table.pk
    assert snapshot["round"]["id"] == round_.pk
    assert snapshot["state"] == "betting"
    assert parse_time(snapshot["closes_at"]) == round_.closes_at
    assert abs((parse_time(snapshot["server_time"]) - datetime.now(UTC)).total_seconds()) < 2
    assert snapshot["server_time"].endswith("Z")
    assert len(snapshot["server_time"]) == len("2026-01-01T00:00:00.000Z")
    assert snapshot["limits"]["player"] == {"min": "1.00", "max": "5000.00"}
    assert snapshot["shoe"]["number"] == 1
    assert len(snapshot["shoe"]["commitment"]) == 64
    assert "server_seed" not in json.dumps(snapshot["shoe"])
    assert "balance" not in snapshot
    assert "my_bets" not in snapshot
    await communicator.disconnect()


async def test_a_signed_in_player_gets_balance_and_own_bets_in_the_snapshot(clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "250.00")
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        await database_sync_to_async(place)(alice, round_.pk, ("player", "10.00"), ("tie", "2.50"))

    communicator = await connect(table.pk, user=alice)
    snapshot = await communicator.receive_json_from(timeout=5)

    assert snapshot["balance"] == "237.50"
    assert [(b["type"], b["amount"], b["status"]) for b in snapshot["my_bets"]] == [
        ("player", "10.00", "open"),
        ("tie", "2.50", "open"),
    ]
    assert snapshot["bets_totals"]["totals"]["player"] == {"amount": "10.00", "players": 1}
    await communicator.disconnect()


async def test_an_unknown_table_is_refused():
    communicator = WebsocketCommunicator(ROUTER, "/ws/tables/987654/")
    connected, code = await communicator.connect(timeout=5)
    assert not connected
    assert code == 4404


async def test_the_real_application_signs_a_player_in_by_session_and_refuses_foreign_origins():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice", "75.00")

    def session_cookie() -> str:
        client = Client()
        client.force_login(alice)
        return client.cookies["sessionid"].value

    cookie = await database_sync_to_async(session_cookie)()
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", f"sessionid={cookie}".encode())]
    communicator = await connect(table.pk, app=application, headers=headers)
    snapshot = await communicator.receive_json_from(timeout=5)
    assert snapshot["balance"] == "75.00"
    await communicator.disconnect()

    foreign = WebsocketCommunicator(
        application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://evil.example"), (b"host", b"testserver")]
    )
    connected, _ = await foreign.connect(timeout=5)
    assert not connected


async def test_ping_gets_a_pong_with_server_time_and_snapshot_on_request():
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    await communicator.receive_json_from(timeout=5)

    await communicator.send_json_to({"type": "ping"})
    pong = await communicator.receive_json_from(timeout=5)
    assert pong["type"] == "pong"
    assert abs((parse_time(pong["server_time"]) - datetime.now(UTC)).total_seconds()) < 2

    await communicator.send_json_to({"type": "snapshot"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    await communicator.disconnect()


async def test_a_heartbeat_is_answered_on_the_event_loop_without_a_hop_to_the_database_thread(monkeypatch):
    """Channels' dispatch sends every message through the database thread first (aclose_old_connections); ours
    does not: a ping is answered without it (database_sync_to_async, every read's way, closes connections itself)."""
    import channels.consumer

    hops = []

    async def hop() -> None:
        hops.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", hop)
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    for _ in range(3):
        await communicator.send_json_to({"type": "ping"})
        assert (await communicator.receive_json_from(timeout=5))["type"] == "pong"
    await communicator.send_json_to({"type": "snapshot"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    assert hops == []
    await communicator.disconnect()


async def test_replies_go_through_the_direct_writer_when_there_is_one_and_the_asgi_send_when_it_declines(monkeypatch):
    """Under daphne a socket's replies (its snapshot, pongs) are framed once and written straight to the transport,
    as table events are (tables.broadcast); the test communicator has no daphne behind it, so a fake writer."""
    from tables import consumers
    from tables.broadcast import text_frame

    class Writer:
        def __init__(self) -> None:
            self.frames: list[bytes] = []
            self.accept = True

        def write(self, frame: bytes) -> bool:
            if self.accept:
                self.frames.append(frame)
            return self.accept

    writer = Writer()
    monkeypatch.setattr(consumers, "direct_writer", lambda send: writer)
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    await communicator.send_json_to({"type": "ping"})
    for _ in range(100):
        if len(writer.frames) == 2:
            break
        await asyncio.sleep(0.02)
    snapshot, pong = writer.frames
    assert json.loads(snapshot[4:])["type"] == "snapshot"  # 126 ≤ length < 65,536: a 4-byte header
    assert pong == text_frame(pong[2:])
    assert json.loads(pong[2:])["type"] == "pong"
    assert await communicator.receive_nothing(timeout=0.2)
    writer.accept = False  # e.g. autobahn has frames queued: the ordinary send, in order behind them
    await communicator.send_json_to({"type": "ping"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "pong"
    await communicator.disconnect()


async def test_a_whole_round_arrives_in_order_and_only_the_player_gets_the_personal_event(clock):
    table = await database_sync_to_async(fast_table)(deal_interval_ms=0, betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    player = await connect(table.pk, user=alice)
    watcher = await connect(table.pk)
    assert (await player.receive_json_from(timeout=5))["type"] == "snapshot"
    assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"

    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        await player.send_json_to(
            {
                "type": "place_bets",
                "round_id": round_.pk,
                "mode": "traditional",
                "bets": [{"type": "banker", "amount": "20.00"}],
                "idempotency_key": str(uuid.uuid4()),
            }
        )
        before_settlement = await frames_until(player, "bets.confirmed")
    await database_sync_to_async(drive)(
        table, table_clock, lambda: Round.objects.filter(table=table, state="settled").exists(), max_steps=50
    )

    seen = before_settlement + await frames_until(player, "round.settled")
    # Her own confirm comes back as a wallet.changed too (the page that sent its key skips it).
    assert [f["idempotency_key"] for f in seen if f["type"] == "wallet.changed"] == [
        before_settlement[-1]["idempotency_key"]
    ]
    types = [f["type"] for f in seen if f["type"] not in {"bets.totals", "bets.confirmed", "wallet.changed"}]
    dealt = types.count("card.dealt")
    assert 4 <= dealt <= 6
    assert types == [
        "shoe.shuffled",
        "round.opened",
        "round.closed",
        *["card.dealt"] * dealt,
        "round.result",
        "round.settled",
    ]
    # Every event carries server_time: when it left the server, after its transaction committed.
    stamps = [parse_time(f["server_time"]) for f in seen if f["type"] != "bets.confirmed"]
    assert stamps == sorted(stamps)
    by_type = {f["type"]: f for f in seen}
    opened = by_type["round.opened"]
    assert opened["round_id"] == round_.pk
    assert opened["number"] == 1
    assert parse_time(opened["closes_at"]) == round_.closes_at
    assert "server_time" in opened
    assert "banker" in opened["bet_types"]
    # The deal's pace travels with the round: the page times its card reveal to it.
    assert opened["deal_interval_ms"] == table.deal_interval_ms == 0
    # The round's own limits travel with it, so a page loaded before an operator's edit shows the new ones.
    assert opened["limits"]["per_type"]["tie"] == {"min": "1.00", "max": "5000.00"}
    assert opened["limits"]["pb_difference"] == "5000.00"
    assert by_type["bets.confirmed"]["bets"][0]["type"] == "banker"
    totals = [f for f in seen if f["type"] == "bets.totals"]
    assert totals[-1]["totals"]["banker"] == {"amount": "20.00", "players": 1}
    assert seen.index(totals[0]) < seen.index(by_type["round.closed"])
    cards = [f for f in seen if f["type"] == "card.dealt"]
    assert [c["position"] for c in cards] == list(range(1, dealt + 1))
    assert [c["hand"] for c in cards[:4]] == ["player", "banker", "player", "banker"]
    # Only the round's last card says so (the one a player may squeeze).
    assert [c["last"] for c in cards] == [False] * (dealt - 1) + [True]
    # Each card keeps the shoe's "cards left" live: one fewer per card.
    lefts = [c["cards_left"] for c in cards]
    assert lefts == list(range(lefts[0], lefts[0] - len(cards), -1))
    settled_round = await database_sync_to_async(Round.objects.get)(pk=round_.pk)
    assert [c["card"] for c in cards] == [c["card"] for c in settled_round.cards]
    result = by_type["round.result"]
    assert (result["player_total"], result["banker_total"], result["winner"]) == (
        settled_round.player_total,
        settled_round.banker_total,
        settled_round.winner,
    )
    assert cards[-1]["totals"] == {"player": result["player_total"], "banker": result["banker_total"]}
    assert "roads" in result
    assert result["flags"]["winner"] == result["winner"]
    personal = by_type["round.settled"]
    assert personal["round_id"] == round_.pk
    assert personal["balance"] == str(await database_sync_to_async(balance_of)(alice))

    watched = await frames_until(watcher, "round.result")
    assert [f["type"] for f in watched if f["type"] != "bets.totals"] == types[:-1]
    assert await watcher.receive_nothing(timeout=0.5)
    await player.disconnect()
    await watcher.disconnect()


async def test_a_player_who_disconnects_keeps_the_bet_and_sees_the_result_on_reconnect(clock):
    async with seated_at_betting(clock, "100.00", result_seconds=30) as (
        table,
        alice,
        round_,
        communicator,
        table_clock,
    ):
        await communicator.send_json_to(
            {
                "type": "place_bets",
                "round_id": round_.pk,
                "mode": "no_commission",
                "bets": [{"type": "banker", "amount": "10.00"}],
                "idempotency_key": "k-1",
            }
        )
        confirmed = await frames_until(communicator, "bets.confirmed")
    await communicator.disconnect()

    await database_sync_to_async(drive_to_state)(table, table_clock, "settled")

    back = await connect(table.pk, user=alice)
    snapshot = await back.receive_json_from(timeout=5)
    assert snapshot["round"]["id"] == round_.pk
    assert snapshot["round"]["state"] == "settled"
    assert snapshot["round"]["winner"] in {"player", "banker", "tie"}
    assert len(snapshot["round"]["cards"]) >= 4
    [bet] = snapshot["my_bets"]
    assert bet["id"] == confirmed[-1]["bets"][0]["id"]
    assert bet["status"] in {"won", "lost", "push"}
    assert bet["mode"] == "no_commission"
    assert snapshot["balance"] == str(await database_sync_to_async(balance_of)(alice))
    await back.disconnect()

    # Later, when the next round is on, the snapshot still carries how the player's round ended.
    table_clock.advance(31)
    await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
    later = await connect(table.pk, user=alice)
    snapshot = await later.receive_json_from(timeout=5)
    assert snapshot["round"]["number"] == 2
    assert snapshot["last_round"]["id"] == round_.pk
    assert [b["id"] for b in snapshot["my_last_bets"]] == [bet["id"]]
    await later.disconnect()


async def test_bad_frames_get_error_frames_and_never_crash_the_consumer():
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    await communicator.receive_json_from(timeout=5)

    assert (await error_for(communicator, "{not json"))["code"] == "invalid_json"
    assert (await error_for(communicator, "[1, 2]"))["code"] == "invalid_frame"
    assert (await error_for(communicator, '{"no": "type"}'))["code"] == "invalid_frame"
    assert (await error_for(communicator, '{"type": "launch_missiles"}'))["code"] == "unknown_type"
    assert (await error_for(communicator, data=b"\x00\x01"))["code"] == "invalid_frame"
    refused = await error_for(communicator, json.dumps({"type": "place_bets", "round_id": 1, "bets": []}))
    assert refused == {"type": "error", "code": "not_authenticated", "detail": "Sign in to place bets."}

    await communicator.send_json_to({"type": "ping"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "pong"
    await communicator.disconnect()


async def test_place_bets_refusals_carry_the_domain_code_and_detail(clock):
    async with seated_at_betting(clock, "5.00") as (_, _, round_, communicator, _):

        async def attempt(**frame) -> dict:
            body = {"type": "place_bets", "round_id": round_.pk, "mode": "traditional", "idempotency_key": "x", **frame}
            await communicator.send_json_to(body)
            return await communicator.receive_json_from(timeout=5)

        assert (await attempt(bets=[{"type": "player", "amount": "10.00"}]))["code"] == "insufficient_funds"
        assert (await attempt(bets=[{"type": "player", "amount": "0.50"}], idempotency_key="y"))["code"] == "below_min"
        assert (await attempt(bets=[{"type": "nope", "amount": "1.00"}], idempotency_key="z"))["code"] == (
            "unknown_bet_type"
        )
        assert (await attempt(bets=[{"type": "player", "amount": "1.00"}], round_id="7"))["code"] == "invalid_request"
        assert (await attempt(bets="player", idempotency_key="w"))["code"] == "invalid_request"
        missing = await attempt(bets=[{"type": "player", "amount": "1.00"}], round_id=round_.pk + 1000)
        assert missing["code"] == "round_not_found"
        assert missing["detail"]
    await communicator.disconnect()


async def test_a_socket_confirm_takes_one_trip_to_a_worker_thread(clock, monkeypatch):
    # The session check, the confirm rate and bet_place run together: one thread hand-off and one database
    # connection (with DB_POOL, one checkout) per confirm, not one for the checks and another for the bets.
    from tables import consumers

    async with seated_at_betting(clock, "100.00") as (_, _, round_, communicator, _):
        trips: list[str] = []

        def counted(function, **kwargs):
            trips.append(function.__name__)
            return database_sync_to_async(function, **kwargs)

        monkeypatch.setattr(consumers, "database_sync_to_async", counted)
        await communicator.send_json_to(
            {
                "type": "place_bets",
                "round_id": round_.pk,
                "mode": "traditional",
                "bets": [{"type": "player", "amount": "10.00"}],
                "idempotency_key": str(uuid.uuid4()),
            }
        )
        await frames_until(communicator, "bets.confirmed")
    assert trips == ["_confirm"]
    await communicator.disconnect()


async def test_an_oversized_frame_gets_an_error_and_the_socket_is_closed():
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    await communicator.receive_json_from(timeout=5)

    error = await error_for(communicator, json.dumps({"type": "ping", "pad": "x" * 20_000}))
    assert error["code"] == "frame_too_large"
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4009}
    await communicator.disconnect(code=4009)


async def test_a_flood_is_rate_limited_and_then_disconnected():
    table = await database_sync_to_async(fast_table)()
    communicator = await connect(table.pk)
    await communicator.receive_json_from(timeout=5)

    for _ in range(80):
        await communicator.send_json_to({"type": "ping"})
    outputs = []
    while True:
        output = await communicator.receive_output(timeout=5)
        outputs.append(output)
        if output["type"] == "websocket.close":
            break
    frames = [json.loads(o["text"]) for o in outputs if o["type"] == "websocket.send"]
    assert 20 <= sum(f["type"] == "pong" for f in frames) <= 23
    assert any(f.get("code") == "rate_limited" for f in frames)
    assert outputs[-1] == {"type": "websocket.close", "code": 4429}
    await communicator.disconnect(code=4429)


async def test_a_player_at_two_tables_gets_each_tables_settlement_only_there_and_elsewhere_a_wallet_change(clock):
    first = await database_sync_to_async(fast_table)("First", deal_interval_ms=0, betting_seconds=BETTING_SECONDS)
    second = await database_sync_to_async(fast_table)("Second")
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    at_second = await connect(second.pk, user=alice)
    await at_second.receive_json_from(timeout=5)
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(first, table_clock, "betting")
        await database_sync_to_async(place)(alice, round_.pk, ("player", "5.00"))
    await database_sync_to_async(drive_to_state)(first, table_clock, "settled")

    # At the second table only that her wallet changed, twice (the bet, the settlement): no bets, no balance.
    heard = []
    while not await at_second.receive_nothing(timeout=0.5):
        heard.append(await at_second.receive_json_from())
    assert [(frame["type"], frame["table_id"], frame["round_id"]) for frame in heard] == [
        ("wallet.changed", first.pk, round_.pk)
    ] * 2
    assert not any("bets" in frame or "balance" in frame for frame in heard)
    assert (await database_sync_to_async(latest_round)(first)).state == "settled"
    await at_second.disconnect()


async def test_sockets_of_one_process_share_one_membership_of_the_table_group_and_leave_none_behind():
    table = await database_sync_to_async(fast_table)()
    layer = get_channel_layer()
    members = layer._group_key(f"table_{table.pk}")
    redis = layer.connection(layer.consistent_hash(f"table_{table.pk}"))
    sockets = [await connect(table.pk) for _ in range(3)]
    for socket in sockets:
        await socket.receive_json_from(timeout=5)

    assert await redis.zcard(members) == 1
    await layer.group_send(f"table_{table.pk}", {"type": "table.paused", "table_id": table.pk, "reason": "test"})
    for socket in sockets:
        assert (await socket.receive_json_from(timeout=5)) == {
            "type": "table.paused",
            "table_id": table.pk,
            "reason": "test",
        }

    for socket in sockets:
        await socket.disconnect()
    for _ in range(50):
        if await redis.zcard(members) == 0:
            break
        await asyncio.sleep(0.05)
    assert await redis.zcard(members) == 0


async def test_the_channel_layers_redis_client_waits_longer_than_a_blocking_read():
    """The fast check of what the slow test below proves end to end: every Redis connection of the channel layer
    waits for a reply longer than channels_redis blocks in one read (redis-py 8 defaults to 5 s, as long as the
    read: an idle consumer would then crash every 5 s)."""
    layer = get_channel_layer()
    assert layer.ring_size >= 1
    for index in range(layer.ring_size):
        pool = layer.connection(index).connection_pool
        timeout = pool.connection_class(**pool.connection_kwargs).socket_timeout
        assert timeout is None or timeout >= layer.brpop_timeout + 5, (index, timeout, layer.brpop_timeout)


# Slow by nature: what is tested is that a real blocking read of ``brpop_timeout`` (5 s in channels_redis) ends
# quietly rather than with a socket timeout, so one such read must run its whole course. The test waits for
# exactly that (one read that lasted the whole time and came back empty, and the next one started), not a fixed
# time; the fast test above checks the same settings without waiting.
@pytest.mark.slow
async def test_a_socket_that_hears_nothing_for_longer_than_a_blocking_read_still_gets_the_next_events():
    layer = get_channel_layer()
    reads: list[tuple[float, str]] = []  # (how long a blocking read took, what it ended with)
    started = []
    blocking_read = layer._brpop_with_clean

    async def watched_read(index, channel, timeout):
        loop = asyncio.get_running_loop()
        began = loop.time()
        started.append(began)
        try:
            member = await blocking_read(index, channel, timeout)
        except BaseException as error:
            reads.append((loop.time() - began, repr(error)))
            raise
        reads.append((loop.time() - began, "empty" if member is None else "message"))
        return member

    layer._brpop_with_clean = watched_read
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice", "10.00")
    player = await connect(table.pk, user=alice)
    watcher = await connect(table.pk)
    await player.receive_json_from(timeout=5)
    await watcher.receive_json_from(timeout=5)

    # Until one read has blocked for its whole timeout, come back empty, and the next has begun.
    deadline = asyncio.get_running_loop().time() + layer.brpop_timeout + 10
    while True:
        failed = [outcome for _, outcome in reads if outcome not in {"empty", "message"}]
        assert not failed, f"a blocking read of the channel layer failed: {failed}"
        ran_its_course = any(took >= layer.brpop_timeout - 0.5 and outcome == "empty" for took, outcome in reads)
        if ran_its_course and len(started) > len(reads):
            break
        assert asyncio.get_running_loop().time() < deadline, f"no blocking read ran its course: {reads}"
        await asyncio.sleep(0.1)

    await layer.group_send(f"table_{table.pk}", {"type": "round.closed", "table_id": table.pk, "round_id": 1})
    await layer.group_send(f"user_{alice.pk}", {"type": "round.settled", "table_id": table.pk, "round_id": 1})
    assert (await watcher.receive_json_from(timeout=5))["type"] == "round.closed"
    assert [(await player.receive_json_from(timeout=5))["type"] for _ in range(2)] == ["round.closed", "round.settled"]
    await player.disconnect()
    await watcher.disconnect()


async def test_watchers_hear_pauses_resumes_and_cancellations(clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "50.00")
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        await database_sync_to_async(place)(alice, round_.pk, ("player", "10.00"))
    player = await connect(table.pk, user=alice)
    await player.receive_json_from(timeout=5)

    await database_sync_to_async(controls.table_pause)(table_id=table.pk, reason="Dealer change")
    frames = await frames_until(player, "table.paused")
    by_type = {f["type"]: f for f in frames}
    cancelled = dict(by_type["round.cancelled"])
    assert parse_time(cancelled.pop("server_time")) <= datetime.now(UTC)
    assert isinstance(cancelled.pop("seq"), int)
    assert cancelled.pop("epoch")
    # The operator's "Dealer change" stays internal: players are told fixed public messages.
    assert cancelled == {
        "type": "round.cancelled",
        "round_id": round_.pk,
        "reason": "The round was cancelled and every bet on it refunded.",
        "cause": "paused",  # the operator paused the table before the deal: a code, never their words
    }
    assert (by_type["table.paused"]["reason"], by_type["table.paused"]["notice"]) == ("Paused", "paused")
    assert by_type["table.paused"]["round_state"] == "cancelled"
    refund = by_type["round.settled"]
    assert refund["bets"][0]["status"] == "refunded"
    assert refund["balance"] == "50.00"

    await database_sync_to_async(controls.table_resume)(table_id=table.pk, reason="Back")
    resumed = await frames_until(player, "table.resumed")
    assert resumed[-1]["reason"] is None  # "Back" stays internal
    await database_sync_to_async(drive_to_state)(table, table_clock, "dealing")
    await database_sync_to_async(controls.table_pause)(table_id=table.pk, reason="Card on the floor")
    paused = (await frames_until(player, "table.paused"))[-1]
    assert paused["round_state"] == "paused"
    await player.send_json_to({"type": "snapshot"})
    snapshot = await frames_until(player, "snapshot")
    assert snapshot[-1]["table"]["status"] == "paused"
    assert snapshot[-1]["round"]["state"] == "paused"
    await player.disconnect()


async def test_sockets_connecting_together_share_one_snapshot_read_until_the_next_table_event(monkeypatch):
    reads = []
    real = hub.table_snapshot

    def counting(table_id):
        reads.append(table_id)
        return real(table_id)

    monkeypatch.setattr(hub, "table_snapshot", counting)
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice", "20.00")
    first = [await connect(table.pk) for _ in range(4)] + [await connect(table.pk, user=alice)]
    snapshots = [await s.receive_json_from(timeout=5) for s in first]
    assert len(reads) == 1
    assert "balance" not in snapshots[0]
    assert snapshots[-1]["balance"] == "20.00"

    await get_channel_layer().group_send(f"table_{table.pk}", {"type": "table.paused", "table_id": table.pk})
    for socket in first:
        await socket.receive_json_from(timeout=5)
    later = await connect(table.pk)
    await later.receive_json_from(timeout=5)
    assert len(reads) == 2
    for socket in [*first, later]:
        await socket.disconnect()


async def test_a_personal_event_waits_until_the_table_event_before_it_is_written_out():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice", "20.00")
    player = await connect(table.pk, user=alice)
    await player.receive_json_from(timeout=5)
    [hub] = [h for h in TableHub._hubs.values() if h.table_id == table.pk]

    hub.idle.clear()  # as while round.result is still being written to a crowd of sockets
    await get_channel_layer().group_send(f"user_{alice.pk}", {"type": "round.settled", "table_id": table.pk})
    assert await player.receive_nothing(timeout=0.3)
    hub.idle.set()
    assert (await player.receive_json_from(timeout=5))["type"] == "round.settled"
    await player.disconnect()


def _bet_frame(round_id: int, amount: str = "5.00") -> dict:
    return {
        "type": "place_bets",
        "round_id": round_id,
        "mode": "traditional",
        "bets": [{"type": "banker", "amount": amount}],
        "idempotency_key": str(uuid.uuid4()),
    }


async def _reply_to_bet(communicator: WebsocketCommunicator, round_id: int) -> dict:
    await communicator.send_json_to(_bet_frame(round_id))
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        if frame["type"] in {"error", "bets.confirmed"}:
            return frame


def _log_out(session: SessionBase) -> None:
    session.flush()  # what django.contrib.auth.logout does to the session


def _deactivate(user) -> None:
    user.is_active = False
    user.save(update_fields=["is_active"])


def _change_password(user) -> None:
    user.set_password("a-brand-new-secret-42")
    user.save(update_fields=["password"])


@pytest.mark.parametrize(
    "end_it", [_log_out, _deactivate, _change_password], ids=["logout", "deactivated", "password-changed"]
)
async def test_a_socket_opened_while_signed_in_cannot_bet_once_the_sign_in_has_ended(end_it, clock):
    """The socket's user is fixed when it connects; before every bet it re-reads the session and the account."""
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    session = await database_sync_to_async(signed_in_session)(alice)
    communicator = await connect(table.pk, user=alice, session=session)
    await communicator.receive_json_from(timeout=5)
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        assert (await _reply_to_bet(communicator, round_.pk))["type"] == "bets.confirmed"

        await database_sync_to_async(end_it)(session if end_it is _log_out else alice)
        # A password change or a deactivation also closes the player's sockets (4401, after its commit): the bet
        # meets whichever comes first, the close or the socket's own check; either way nothing is placed.
        await communicator.send_json_to(_bet_frame(round_.pk))
        while True:
            message = await communicator.receive_output(timeout=5)
            if message["type"] == "websocket.close":
                assert end_it in (_change_password, _deactivate), message
                assert message.get("code") == 4401
                break
            frame = json.loads(message["text"])
            if frame["type"] in {"error", "bets.confirmed"}:
                assert frame.get("code") == "not_authenticated", frame
                break
    assert await database_sync_to_async(balance_of)(alice) == 95
    count = await database_sync_to_async(lambda: round_.bets.count())()
    assert count == 1
    await communicator.disconnect()


async def test_socket_confirms_count_against_the_same_per_player_rate_as_rest(settings, clock):
    """Four sockets of one player used to place 60 batches in 0.6 s: the REST limit never applied to them."""
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"bet_place": "3/minute"}}
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    sockets = [await connect(table.pk, user=alice) for _ in range(2)]
    for socket in sockets:
        await socket.receive_json_from(timeout=5)
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        replies = [await _reply_to_bet(sockets[i % 2], round_.pk) for i in range(5)]
    assert [r["type"] for r in replies] == ["bets.confirmed"] * 3 + ["error"] * 2
    assert {r["code"] for r in replies[3:]} == {"throttled"}
    assert 0 < replies[3]["retry_after"] <= 60
    assert await database_sync_to_async(balance_of)(alice) == 85
    for socket in sockets:
        await socket.disconnect()


async def frame_of_type(communicator: WebsocketCommunicator, kind: str, timeout: float = 5) -> dict:
    """The first ``kind`` frame, skipping the others (table events, totals)."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame


async def test_a_confirm_tells_the_players_other_sockets_at_every_table_that_the_wallet_changed(clock):
    async with seated_at_betting(clock, "100.00") as (table, alice, round_, here, _):
        elsewhere_table = await database_sync_to_async(fast_table)(name="Elsewhere")
        elsewhere = await connect(elsewhere_table.pk, user=alice)
        await elsewhere.receive_json_from(timeout=5)
        second_device = await connect(table.pk, user=alice)
        await second_device.receive_json_from(timeout=5)
        watcher = await connect(table.pk)
        await watcher.receive_json_from(timeout=5)

        bet = _bet_frame(round_.pk)
        await here.send_json_to(bet)
        assert (await frame_of_type(here, "bets.confirmed"))["balance"] == "95.00"
        expected = {"table_id": table.pk, "round_id": round_.pk, "idempotency_key": bet["idempotency_key"]}
        for socket in (second_device, elsewhere, here):  # the page that sent the key skips its own
            changed = await frame_of_type(socket, "wallet.changed")
            assert {key: changed[key] for key in expected} == expected
            assert "balance" not in changed  # the page reads it after this commit, in order
        while not await watcher.receive_nothing(timeout=0.3):
            assert (await watcher.receive_json_from())["type"] != "wallet.changed"
    for socket in (here, second_device, elsewhere, watcher):
        await socket.disconnect()


async def test_a_settlement_at_another_table_reaches_a_socket_as_wallet_changed_without_the_bets():
    table, other = await database_sync_to_async(fast_table)(), await database_sync_to_async(fast_table)(name="Other")
    alice = await database_sync_to_async(make_player)("alice", "20.00")
    here, there = await connect(table.pk, user=alice), await connect(other.pk, user=alice)
    for socket in (here, there):
        await socket.receive_json_from(timeout=5)
    settled = {"type": "round.settled", "table_id": table.pk, "round_id": 9, "balance": "40.00", "bets": [{"id": 1}]}
    await get_channel_layer().group_send(f"user_{alice.pk}", settled)
    assert (await here.receive_json_from(timeout=5))["type"] == "round.settled"
    changed = await there.receive_json_from(timeout=5)
    assert {key: changed[key] for key in ("type", "table_id", "round_id")} == {
        "type": "wallet.changed",
        "table_id": table.pk,
        "round_id": 9,
    }
    assert "bets" not in changed
    assert "balance" not in changed
    for socket in (here, there):
        await socket.disconnect()
