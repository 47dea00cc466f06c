"""This process's one member of each watched table's group: :class:`TableHub`.

Rather than every socket being its own member of ``table_<id>`` (one channel-layer receive, one JSON
encoding and one wake-up per socket per event), each process joins the group once through a hub, which
encodes and frames each event once and writes the same bytes to every local socket of that table
(``tables.broadcast``). The consumer (``tables.consumers``) joins and leaves it; snapshots for new
sockets are read once per table event per process. :class:`ProcessHub` is the membership both this hub
and the lobby's (``tables.lobby.LobbyHub``) share: one hub per key, stopped with its last socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from baccarat_site.cancelling import cancel_until_done
from tables.broadcast import text_frame, too_slow
from tables.events import table_group
from tables.selectors.chat import chat_history
from tables.selectors.tables import table_snapshot
from tables.sequence import seq_now

if TYPE_CHECKING:
    from tables.consumers import TableConsumer

logger = logging.getLogger(__name__)

CLOSE_RETRY = 4013  # the server cannot serve this socket now (its event hub failed): reconnect (protocol: 1013)


async def close_socket(consumer: Any, code: int, why: str) -> None:
    """Close a socket with an application close code, logging (never swallowing) a failure to do so."""
    assert code == 1000 or 3000 <= code <= 4999, code
    try:
        await consumer.close(code=code)
    except Exception:
        logger.exception("could not close a socket (%s, code %s)", why, code)


# Group event types forwarded to the browser as they are (docs/api.md, server → client).
TABLE_EVENTS = frozenset(
    {
        "round.opened",
        "round.closed",
        "bets.totals",
        "card.dealt",
        "round.result",
        "round.cancelled",
        "table.paused",
        "table.resumed",
        "table.closing",
        "table.closed",
        "table.reopened",
        "table.retired",
        "shoe.shuffled",
        # Live dealer tables (tables.services.dealing).
        "shoe.shuffling",
        "shoe.cut_card",
        "dealer.changed",
    }
)
# Chat frames (tables.services.chat) go to every socket of the table too, but change nothing a snapshot holds:
# they carry no seq and leave the cached snapshot in place.
CHAT_EVENTS = frozenset({"chat.message", "chat.deleted"})
# A cached snapshot is also dropped after this long, whatever happened (an operator's edit sends no event).
SNAPSHOT_TTL = 2.0
# Sockets handed a frame through the ordinary send before the hub lets the event loop write them out.
DELIVERY_BATCH = 64
# An alias with no layer configured: get_channel_layer() gives None, so Channels opens no channel.
WATCHER_LAYER_ALIAS = "tables.watcher-without-channel"


def frame_of(message: dict[str, Any]) -> dict[str, Any]:
    """A group message as the browser gets it: without the channel layer's own ``__`` keys."""
    return {key: value for key, value in message.items() if not key.startswith("__")}


def rejoin_seconds() -> float:
    expiry = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("group_expiry", 86400)
    return max(60.0, expiry / 2)


def _numbered_snapshot(table_id: int) -> dict[str, Any]:
    """The table's snapshot with the sequence number read before it (tables.sequence)."""
    epoch, seq = seq_now(table_id)
    return {**table_snapshot(table_id), "epoch": epoch, "seq": seq}


class ProcessHub:
    """What every per-process group member shares: a registry of live hubs by key (the running event loop,
    the channel layer and, for a table, its id), joined by sockets, stopped with the last one to leave.
    A subclass keeps its own ``_hubs`` and says what its key is; its ``task`` reads the group."""

    _hubs: dict[Any, Any]
    loop: asyncio.AbstractEventLoop
    sockets: Any
    task: asyncio.Future[None]

    @staticmethod
    def _key(consumer: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def leave(cls, consumer: Any) -> None:
        key = cls._key(consumer)
        hub = cls._hubs.get(key)
        if hub is None:
            return
        hub.sockets.discard(consumer)
        if not hub.sockets:
            del cls._hubs[key]
            hub.stop()

    def stop(self) -> None:
        """End the hub (cancelled until it ends: baccarat_site.cancelling)."""
        cancel_until_done(self.task)


class TableHub(ProcessHub):
    """This process's single member of ``table_<id>``: receives each table event once, encodes it once and
    writes it to every local socket watching the table. Created by the first socket, gone with the last.
    If its channel-layer connection fails, it closes its sockets (CLOSE_RETRY) so browsers reconnect and resync."""

    _hubs: dict[tuple[int, int, int], TableHub] = {}

    def __init__(self, table_id: int, layer: Any) -> None:
        self.table_id, self.layer = table_id, layer
        self.loop = asyncio.get_running_loop()
        self.sockets: weakref.WeakSet[TableConsumer] = weakref.WeakSet()
        self.ready = asyncio.Event()
        self.idle = asyncio.Event()  # clear while an event is being written out
        self.idle.set()
        # Every table event bumps the version; a snapshot read at version v is good while it is still v.
        self.version = 0
        self._snapshot: tuple[int, float, dict[str, Any]] | None = None
        self._reading: tuple[int, asyncio.Future] | None = None
        # The chat's recent messages, read again only after a chat event (or SNAPSHOT_TTL): see chat().
        self.chat_version = 0
        self._chat: tuple[int, float, list[dict[str, Any]]] | None = None
        self.task = asyncio.ensure_future(self._run())

    async def snapshot(self) -> dict[str, Any]:
        """The table's public snapshot, read once per table event per process (not once per socket: a
        restarted server's thousands of reconnecting browsers must not each query the database)."""
        cached = self._snapshot
        if cached is not None and cached[0] == self.version and time.monotonic() - cached[1] < SNAPSHOT_TTL:
            return cached[2]
        if self._reading is None or self._reading[0] != self.version:
            version = self.version
            read = asyncio.ensure_future(database_sync_to_async(_numbered_snapshot)(self.table_id))
            self._reading = (version, read)
            read.add_done_callback(lambda done: self._keep(version, done))
        return await asyncio.shield(self._reading[1])

    async def chat(self) -> list[dict[str, Any]]:
        """The table's recent chat (``tables.selectors.chat.chat_history``) for a snapshot, read once per chat
        event per process rather than once per socket."""
        cached = self._chat
        if cached is not None and cached[0] == self.chat_version and time.monotonic() - cached[1] < SNAPSHOT_TTL:
            return cached[2]
        version = self.chat_version
        messages = await database_sync_to_async(chat_history)(self.table_id)
        if version == self.chat_version:
            self._chat = (version, time.monotonic(), messages)
        return messages

    def _keep(self, version: int, done: asyncio.Future) -> None:
        if self._reading is not None and self._reading[1] is done:
            self._reading = None
        if not done.cancelled() and done.exception() is None and version == self.version:
            self._snapshot = (version, time.monotonic(), done.result())

    @staticmethod
    def _key(consumer: TableConsumer) -> tuple[int, int, int]:
        return (id(asyncio.get_running_loop()), id(get_channel_layer()), consumer.table_id)

    @classmethod
    async def join(cls, consumer: TableConsumer) -> None:
        key = cls._key(consumer)
        hub = cls._hubs.get(key)
        if (
            hub is None
            or hub.task.done()
            or hub.loop is not asyncio.get_running_loop()
            or hub.layer is not get_channel_layer()
        ):
            hub = cls._hubs[key] = cls(consumer.table_id, get_channel_layer())
        hub.sockets.add(consumer)
        await hub.ready.wait()
        if hub.task.done():
            raise ConnectionError(f"table {consumer.table_id}: cannot subscribe to the table's events")

    @classmethod
    def of(cls, consumer: TableConsumer) -> TableHub:
        return cls._hubs[cls._key(consumer)]

    @classmethod
    def find(cls, consumer: TableConsumer) -> TableHub | None:
        return cls._hubs.get(cls._key(consumer))

    async def _run(self) -> None:
        group = table_group(self.table_id)
        channel = await self.layer.new_channel()
        keepalive: asyncio.Task | None = None
        try:
            await self.layer.group_add(group, channel)
            keepalive = asyncio.ensure_future(self._keep_membership(group, channel))
            self.ready.set()
            while True:
                await self.deliver(await self.layer.receive(channel))
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("table %s: the event hub failed; closing its sockets so they reconnect", self.table_id)
            for consumer in list(self.sockets):
                await close_socket(consumer, CLOSE_RETRY, f"table {self.table_id}: event hub failed")
        finally:
            self.ready.set()
            if keepalive is not None:
                cancel_until_done(keepalive)
            with contextlib.suppress(Exception):
                await asyncio.shield(self.layer.group_discard(group, channel))

    async def _keep_membership(self, group: str, channel: str) -> None:
        """channels_redis forgets group members after ``group_expiry``: rejoin well before."""
        while True:
            await asyncio.sleep(rejoin_seconds())
            with contextlib.suppress(Exception):
                await self.layer.group_add(group, channel)

    async def deliver(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in TABLE_EVENTS:
            self.version += 1
            self._snapshot = None
        elif kind in CHAT_EVENTS:
            self.chat_version += 1
            self._chat = None
        else:
            return
        text = json.dumps(frame_of(message))
        frame = {"type": "websocket.send", "text": text}
        raw: bytes | None = None  # the WebSocket frame's bytes, built once for every daphne socket
        self.idle.clear()
        buffered = 0
        try:
            for consumer in list(self.sockets):
                if consumer.backlog is not None:  # its first snapshot is not out yet: the event waits for it
                    consumer.backlog.append((message.get("epoch"), message.get("seq"), frame))
                    continue
                try:
                    if consumer.writer is not None:
                        raw = raw if raw is not None else text_frame(text.encode())
                        if consumer.write_direct(raw):
                            continue
                    elif consumer.protocol is not None and too_slow(consumer.protocol):
                        continue
                    await consumer.base_send(frame)
                    buffered += 1
                except Exception:  # one broken socket must not starve the others
                    logger.warning("table %s: a frame could not be written to a socket", self.table_id, exc_info=True)
                if buffered == DELIVERY_BATCH:
                    # The ordinary send only buffers until the loop turns: let those go out now.
                    buffered = 0
                    await asyncio.sleep(0)
        finally:
            self.idle.set()
