"""The lobby: its tiles (tables.selectors.lobby), presence counts, and the ws/lobby/ stream (tables.lobby)."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from baccarat_site.asgi import application
from tables import presence
from tables.engine import roads
from tables.events import LOBBY_GROUP, table_group
from tables.lobby import LobbyHub
from tables.models import Round
from tables.routing import websocket_urlpatterns
from tables.selectors.lobby import lobby_tiles, shoe_stats, tile_roads
from tables.services import controls
from tests.tables.consumers.test_table_consumer import signed_in_session
from tests.tables.services.rounds_kit import Clock, GroupListener, drive, drive_to_state, fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)


async def connect(path: str = "/ws/lobby/", user=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(ROUTER, path)
    if user is not None:
        # A signed-in socket carries the session that signs it in: a table socket reads it again once it has
        # joined, and closes with 4401 when it signs no one in (tables.consumers).
        communicator.scope["user"] = user
        communicator.scope["session"] = await database_sync_to_async(signed_in_session)(user)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def frame_where(communicator: WebsocketCommunicator, test, timeout: float = 10) -> dict:
    """The first frame for which ``test(frame)`` holds (frames before it are skipped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        frame = await communicator.receive_json_from(timeout=max(0.1, deadline - loop.time()))
        if test(frame):
            return frame


# ── the selector ─────────────────────────────────────────────────────────────


def test_a_tile_has_the_limits_range_status_round_roads_and_shoe_percentages():
    table = fast_table("Tile table")
    clock = Clock()
    drive(table, clock, lambda: Round.objects.filter(table=table, state="settled").count() == 3)
    round_ = drive_to_state(table, clock, "betting")

    (tile,) = lobby_tiles()
    assert tile["id"] == table.pk
    assert tile["name"] == "Tile table"
    assert tile["variant"] == table.variant.name
    assert tile["decks"] == 8
    assert tile["status"] == "open"
    assert tile["status_reason"] is None
    low = min(b.min_stake for b in table.variant.bets.all())
    high = max(b.max_stake for b in table.variant.bets.all())
    assert tile["limits"]["min"] == f"{low:.2f}"
    assert tile["limits"]["max"] == f"{high:.2f}"
    assert tile["limits"]["max_label"] == f"{high:,.2f}"
    assert tile["round"]["id"] == round_.pk
    assert tile["round"]["state"] == "betting"
    assert tile["round"]["closes_at"].endswith("Z")
    assert tile["stats"]["rounds"] == 3 == len(tile["roads"]["bead_plate"])
    assert tile["stats"]["banker"] + tile["stats"]["player"] + tile["stats"]["tie"] == 3
    assert tile["players"] == 0


def test_shoe_percentages_and_the_roads_cut_to_the_tile():
    flags = [{"winner": w} for w in ["banker"] * 50 + ["player"] * 30 + ["tie"] * 10]
    stats = shoe_stats(flags)
    assert stats == {
        "rounds": 90,
        "banker": 50,
        "player": 30,
        "tie": 10,
        "banker_pct": "55.6",
        "player_pct": "33.3",
        "tie_pct": "11.1",
    }
    assert shoe_stats([])["banker_pct"] == "0.0"

    alternating = [{"winner": "banker" if i % 2 else "player", "player_total": 0, "banker_total": 0} for i in range(90)]
    small = tile_roads(roads(alternating))
    assert max(c["col"] for c in small["bead_plate"]) == 5  # the newest six columns, from column 0
    assert small["bead_plate"][0]["col"] == 0
    assert small["bead_plate"][0]["player_total"] == 0
    assert max(c["col"] for c in small["big_road"]) == 11
    assert small["big_road"][-1]["winner"] == "banker"
    assert "player_pair" not in small["big_road"][-1]  # flags that are off are left out


async def test_presence_counts_distinct_signed_in_users_and_forgets_expired_sockets():
    await presence.enter(1, 7, "socket-a")
    await presence.enter(1, 7, "socket-b")  # one player, two tabs
    await presence.enter(1, 8, "socket-c")
    assert await presence.player_counts_async([1, 2]) == {1: 2, 2: 0}
    await presence.leave(1, 8, "socket-c")
    assert (await presence.player_counts_async([1]))[1] == 1

    # A crashed server's socket never leaves: its entry expires on its own.
    client = presence._async_client()
    await client.zadd(presence._key(1), {"9:ghost": 1.0})
    assert (await presence.player_counts_async([1]))[1] == 1
    await presence.leave(1, 7, "socket-a")
    await presence.leave(1, 7, "socket-b")


# ── the stream ───────────────────────────────────────────────────────────────


async def test_an_anonymous_watcher_gets_a_snapshot_of_every_table():
    first = await database_sync_to_async(fast_table)("First")
    second = await database_sync_to_async(fast_table)("Second")
    await database_sync_to_async(drive_to_state)(first, Clock(), "betting")

    communicator = await connect()
    snapshot = await communicator.receive_json_from(timeout=5)

    assert snapshot["type"] == "snapshot"
    assert snapshot["server_time"].endswith("Z")
    assert [t["id"] for t in snapshot["tables"]] == [first.pk, second.pk]
    assert snapshot["tables"][0]["round"]["state"] == "betting"
    assert snapshot["tables"][1]["round"] is None
    await communicator.disconnect()


async def test_a_round_that_opens_reaches_the_lobby_as_a_small_update():
    table = await database_sync_to_async(fast_table)("Live")
    clock = Clock()
    await database_sync_to_async(drive_to_state)(table, clock, "settled")
    communicator = await connect()
    await communicator.receive_json_from(timeout=5)  # the snapshot

    round_ = await database_sync_to_async(drive_to_state)(table, clock, "betting")
    update = await frame_where(communicator, lambda f: f["type"] == "table" and f["event"] == "round.opened")

    assert update["table_id"] == table.pk
    assert update["server_time"].endswith("Z")
    assert update["changes"]["round"]["id"] == round_.pk
    assert update["changes"]["round"]["state"] == "betting"
    assert update["changes"]["round"]["closes_at"].endswith("Z")
    assert set(update["changes"]) <= {"round", "roads", "stats"}  # what changed, not the whole tile
    assert len(json.dumps(update)) < 1000
    await communicator.disconnect()


def test_the_lobby_group_hears_of_the_first_card_only_not_of_every_card():
    table = fast_table("Cards")
    lobby, at_table = GroupListener(LOBBY_GROUP), GroupListener(table_group(table.pk))

    drive_to_state(table, Clock(), "result")

    lobby_events = [(m["table_id"], m["event"]) for m in lobby.drain()]
    table_events = at_table.types()
    assert table_events.count("card.dealt") >= 4
    assert lobby_events[-4:] == [
        (table.pk, "round.opened"),
        (table.pk, "round.closed"),
        (table.pk, "card.dealt"),
        (table.pk, "round.result"),
    ]
    assert "bets.totals" not in {event for _, event in lobby_events}


async def test_a_result_brings_the_winner_the_roads_and_the_shoe_percentages():
    table = await database_sync_to_async(fast_table)("Result")
    clock = Clock()
    await database_sync_to_async(drive_to_state)(table, clock, "betting")
    communicator = await connect()
    await communicator.receive_json_from(timeout=5)

    await database_sync_to_async(drive_to_state)(table, clock, "result")
    result = await frame_where(communicator, lambda f: f["type"] == "table" and "stats" in f["changes"])
    assert result["changes"]["round"]["winner"] in ("player", "banker", "tie")
    assert result["changes"]["stats"]["rounds"] == 1
    assert len(result["changes"]["roads"]["bead_plate"]) == 1
    await communicator.disconnect()


async def test_a_paused_table_shows_paused_with_a_public_reason_never_the_operators_and_resumes():
    table = await database_sync_to_async(fast_table)("Pausing")
    await database_sync_to_async(drive_to_state)(table, Clock(), "betting")
    communicator = await connect()
    await communicator.receive_json_from(timeout=5)

    await database_sync_to_async(controls.table_pause)(table_id=table.pk, reason="Dealer change")
    paused = await frame_where(communicator, lambda f: f["type"] == "table" and "status" in f["changes"])
    assert paused["event"] in ("round.cancelled", "table.paused")  # both come out of one commit: one read
    assert paused["changes"]["status"] == "paused"
    assert paused["changes"]["status_reason"] == "Paused"  # the operator's "Dealer change" stays internal
    assert paused["changes"]["status_notice"] == "paused"
    assert paused["changes"]["round"]["state"] == "cancelled"

    await database_sync_to_async(controls.table_resume)(table_id=table.pk)
    resumed = await frame_where(communicator, lambda f: f["type"] == "table" and "status" in f["changes"])
    assert resumed["changes"]["status"] == "open"
    assert resumed["changes"]["status_reason"] is None

    other = await connect()  # a newcomer's snapshot agrees
    snapshot = await other.receive_json_from(timeout=5)
    assert snapshot["tables"][0]["status"] == "open"
    await other.disconnect()
    await communicator.disconnect()


async def test_a_player_at_a_table_is_counted_in_the_lobby(monkeypatch):
    monkeypatch.setattr("tables.lobby.PLAYERS_SECONDS", 0.1)  # the hub polls the counts this often (3 s in production)
    table = await database_sync_to_async(fast_table)("Busy")
    alice = await database_sync_to_async(make_player)("alice", "10.00")
    at_table = await connect(f"/ws/tables/{table.pk}/", user=alice)
    await at_table.receive_json_from(timeout=5)

    lobby = await connect()
    snapshot = await lobby.receive_json_from(timeout=5)
    assert snapshot["tables"][0]["players"] == 1

    await at_table.disconnect()
    update = await frame_where(lobby, lambda f: f["type"] == "table" and "players" in f["changes"], timeout=10)
    assert update["changes"] == {"players": 0}
    await lobby.disconnect()


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        ("not json", "invalid_json"),
        ("[1, 2]", "invalid_frame"),
        ('{"no": "type"}', "invalid_frame"),
        ('{"type": "place_bets"}', "unknown_type"),
        (None, "invalid_frame"),
    ],
)
async def test_bad_frames_get_an_error_frame_and_the_socket_stays_open(sent, code):
    await database_sync_to_async(fast_table)("Errors")
    communicator = await connect()
    await communicator.receive_json_from(timeout=5)

    if sent is None:
        await communicator.send_to(bytes_data=b"\x00\x01")
    else:
        await communicator.send_to(text_data=sent)
    error = await communicator.receive_json_from(timeout=5)
    assert error["type"] == "error"
    assert error["code"] == code
    assert error["detail"]

    await communicator.send_json_to({"type": "ping"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "pong"
    await communicator.send_json_to({"type": "snapshot"})
    assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    await communicator.disconnect()


async def test_a_frame_too_large_is_refused_and_the_socket_closed():
    communicator = await connect()
    await communicator.receive_json_from(timeout=5)
    await communicator.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * 5000}))
    error = await communicator.receive_json_from(timeout=5)
    assert error["code"] == "frame_too_large"
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    # The browser answers a close with its own: the consumer's disconnect lets the lobby hub stop.
    await communicator.disconnect(code=4009)


async def test_the_real_application_lets_anyone_watch_the_lobby_but_refuses_foreign_origins():
    await database_sync_to_async(fast_table)("Open to all")
    watcher = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")]
    )
    connected, _ = await watcher.connect(timeout=5)
    assert connected
    snapshot = await watcher.receive_json_from(timeout=5)
    assert [t["name"] for t in snapshot["tables"]] == ["Open to all"]
    hubs = [hub.task for hub in LobbyHub._hubs.values()]
    await watcher.disconnect()
    # The last watcher gone, the hub stops: let it finish here, not in the loop's teardown (where a refresh due
    # meanwhile once held the test's event loop open until the timeout).
    await asyncio.wait(hubs, timeout=10)

    foreign = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example"), (b"host", b"testserver")]
    )
    connected, _ = await foreign.connect(timeout=5)
    assert not connected
