"""WebSocket consumer for ``ws/lobby/``: every table as a live tile (docs/lobby.md).

Anyone may watch. On connect a socket gets a ``snapshot`` (every tile), then ``table`` frames carrying only
the fields of one tile that changed. Client frames: ``ping``, ``snapshot``; anything else gets an ``error``
frame, a flood gets ``rate_limited`` errors and then the socket is closed.

How the lobby hears of table events: the publishers (``tables.events.table_event``) also send one tiny message
to the ``lobby`` group for the events that change a tile (a round opened, closed, its first card, its result, a
cancel, a pause or resume, a close or reopen, a new shoe; never every card or the bet totals). A table that
leaves the lobby (closed by an operator, retired) or joins it (reopened) sends every socket a new snapshot. Each
process joins that group once, through a :class:`LobbyHub`, which re-reads that table's tile (the table's events
coalesced while a read is under way), compares it with the tile it holds and writes the changed fields to every
local lobby socket. It also polls the player counts (``tables.presence``) every ``PLAYERS_SECONDS`` and re-reads
every tile every ``REFRESH_SECONDS`` (what no event announces: an operator's edit, a new table, a settled
round).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from baccarat_site.cancelling import cancel_until_done
from baccarat_site.clock import server_time
from tables import presence
from tables.consumers import GuardedJsonConsumer
from tables.events import LOBBY_GROUP
from tables.hub import CLOSE_RETRY, WATCHER_LAYER_ALIAS, ProcessHub, close_socket, rejoin_seconds
from tables.selectors.lobby import lobby_tiles

logger = logging.getLogger(__name__)

MAX_FRAME_CHARS = 1024
RATE_PER_SECOND = 5.0
RATE_BURST = 10.0
PLAYERS_SECONDS = 3.0
REFRESH_SECONDS = 15.0


class LobbyHub(ProcessHub):
    """This process's single member of the ``lobby`` group; holds every tile and tells its sockets what changed."""

    _hubs: dict[tuple[int, int], LobbyHub] = {}

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.loop = asyncio.get_running_loop()
        self.sockets: set[LobbyConsumer] = set()
        self.tiles: dict[int, dict[str, Any]] = {}
        self.ready = asyncio.Event()
        self.dirty: dict[int, str] = {}  # table id → the last event that made its tile stale
        self.wake = asyncio.Event()
        self.lock = asyncio.Lock()  # one tile read-and-compare at a time: an older read never lands over a newer one
        self.task = asyncio.ensure_future(self._run())

    # ── membership ──────────────────────────────────────────────────────────

    @staticmethod
    def _key(consumer: LobbyConsumer) -> tuple[int, int]:
        return (id(asyncio.get_running_loop()), id(get_channel_layer()))

    @classmethod
    async def join(cls, consumer: LobbyConsumer) -> LobbyHub:
        key = cls._key(consumer)
        hub = cls._hubs.get(key)
        if hub is None or hub.task.done() or hub.layer is not get_channel_layer():
            hub = cls._hubs[key] = cls(get_channel_layer())
        hub.sockets.add(consumer)
        await hub.ready.wait()
        if hub.task.done():
            hub.sockets.discard(consumer)
            raise ConnectionError("the lobby cannot subscribe to the tables' events")
        return hub

    def snapshot(self) -> dict[str, Any]:
        return {"type": "snapshot", "tables": list(self.tiles.values()), "server_time": server_time()}

    # ── the loop ────────────────────────────────────────────────────────────

    async def _run(self) -> None:
        channel = await self.layer.new_channel()
        helpers: list[asyncio.Task] = []
        try:
            await self.layer.group_add(LOBBY_GROUP, channel)
            self.tiles = {tile["id"]: tile for tile in await database_sync_to_async(lobby_tiles)()}
            self.ready.set()
            helpers = [
                asyncio.ensure_future(self._updates()),
                asyncio.ensure_future(self._players()),
                asyncio.ensure_future(self._refresh()),
                asyncio.ensure_future(self._keep_membership(channel)),
            ]
            while True:
                message = await self.layer.receive(channel)
                table_id = message.get("table_id")
                if message.get("type") == "lobby.table" and isinstance(table_id, int):
                    self.dirty[table_id] = str(message.get("event", ""))
                    self.wake.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("lobby: the event hub failed; closing its sockets so they reconnect")
            for consumer in list(self.sockets):
                await close_socket(consumer, CLOSE_RETRY, "lobby: event hub failed")
        finally:
            self.ready.set()
            for helper in helpers:
                cancel_until_done(helper)
            with contextlib.suppress(Exception):
                await asyncio.shield(self.layer.group_discard(LOBBY_GROUP, channel))

    async def _keep_membership(self, channel: str) -> None:
        while True:
            await asyncio.sleep(rejoin_seconds())
            with contextlib.suppress(Exception):
                await self.layer.group_add(LOBBY_GROUP, channel)

    async def _updates(self) -> None:
        """Re-read the tiles of the tables that had events, one read for all that piled up meanwhile."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            async with self.lock:
                dirty, self.dirty = self.dirty, {}
                try:
                    tiles = await database_sync_to_async(lobby_tiles)(list(dirty))
                    read = {tile["id"] for tile in tiles}
                    if read - set(self.tiles) or (set(dirty) & set(self.tiles)) - read:
                        # A table joined the lobby (reopened) or left it (closed, retired): a new snapshot.
                        everything = await database_sync_to_async(lobby_tiles)()
                        self.tiles = {tile["id"]: tile for tile in everything}
                        await self._send_all(self.snapshot())
                        continue
                except Exception:
                    logger.warning("lobby: tiles could not be read; the next refresh catches up", exc_info=True)
                    continue
                for tile in tiles:
                    await self._apply(tile, dirty.get(tile["id"], ""))

    async def _players(self) -> None:
        while True:
            await asyncio.sleep(PLAYERS_SECONDS)
            counts = await presence.player_counts_async(list(self.tiles))
            async with self.lock:
                for table_id, count in (counts or {}).items():
                    tile = self.tiles.get(table_id)
                    if tile is not None and tile["players"] != count:
                        await self._apply({**tile, "players": count}, "players")

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            async with self.lock:
                try:
                    tiles = await database_sync_to_async(lobby_tiles)()
                except Exception:
                    logger.warning("lobby: tiles could not be refreshed", exc_info=True)
                    continue
                if [tile["id"] for tile in tiles] != list(self.tiles):  # a table was added or removed: start over
                    self.tiles = {tile["id"]: tile for tile in tiles}
                    await self._send_all(self.snapshot())
                    continue
                for tile in tiles:
                    await self._apply(tile, "refresh")

    async def _apply(self, tile: dict[str, Any], cause: str) -> None:
        old = self.tiles.get(tile["id"])
        if old is None:
            return  # a table this hub has not announced yet: the next refresh sends a new snapshot
        changes = {key: value for key, value in tile.items() if old.get(key) != value}
        self.tiles[tile["id"]] = tile
        if changes:
            frame = {"type": "table", "table_id": tile["id"], "event": cause, "changes": changes}
            await self._send_all({**frame, "server_time": server_time()})

    async def _send_all(self, frame: dict[str, Any]) -> None:
        text = json.dumps(frame)
        for consumer in list(self.sockets):
            try:
                await consumer.send(text_data=text)
            except Exception:  # one broken socket must not starve the others
                logger.warning("lobby: a frame could not be written to a socket", exc_info=True)


class LobbyConsumer(GuardedJsonConsumer):
    # Tile updates come through the process's LobbyHub only: no channel of its own.
    channel_layer_alias = WATCHER_LAYER_ALIAS
    hub: LobbyHub | None = None
    max_frame_chars = MAX_FRAME_CHARS
    rate_per_second = RATE_PER_SECOND
    rate_burst = RATE_BURST

    async def connect(self) -> None:
        self.start_guard()
        await self.accept()
        user = self.scope.get("user")
        if not await self.take_socket_slot(user.pk if user is not None and user.is_authenticated else None):
            return
        try:
            self.hub = await LobbyHub.join(self)
        except ConnectionError:  # the channel layer is unreachable: the browser reconnects with backoff
            await close_socket(self, CLOSE_RETRY, "lobby: channel layer unreachable")
            return
        await self.send_json(self.hub.snapshot())

    async def disconnect(self, code: int) -> None:
        self.release_socket_slot()
        if self.hub is not None:
            LobbyHub.leave(self)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content["type"]
        if kind == "ping":
            await self.send_json({"type": "pong", "server_time": server_time()})
        elif kind == "snapshot" and self.hub is not None:
            await self.send_json(self.hub.snapshot())
        else:
            await self.send_error("unknown_type", f"Unknown frame type {kind[:40]!r}.")
