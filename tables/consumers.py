"""The table socket, ``ws/tables/<id>/`` (docs/api.md, "WebSocket"), and the guard every socket of ours shares.

:class:`GuardedJsonConsumer` (the lobby's socket, tables/lobby.py, extends it too) guards the door: a token bucket
per socket (a flood gets ``rate_limited`` errors, then the close 4429), frames of at most ``MAX_FRAME_CHARS``
(4009), an ``error`` frame for anything that is not a JSON object with a ``type``, and the caps on open sockets
per player and per address (``tables.socketcap``, 4430). Nothing a client sends can crash a consumer.

:class:`TableConsumer`: anyone may watch. The table's events reach a socket through its process's
:class:`tables.hub.TableHub` (one member of ``table_<id>`` per process, each frame encoded once and written to
every local socket, ``tables.broadcast``); a signed-out watcher has no channel of its own at all. A signed-in
player's socket also joins ``user_<id>``, for ``round.settled`` (of this table; another table's becomes a
``wallet.changed``), ``wallet.changed`` (a confirm at any table) and ``session.ended`` (a sign-out or a password
change: the close 4401); once it has joined, its session is read again (signed out or deactivated meanwhile:
the close 4401, before any snapshot). On connect the socket gets a snapshot (the hub's, with the
recent ``chat``, plus the player's own part), then the events that arrived meanwhile which the snapshot does not
already hold (by epoch and ``seq``). Client frames: ``ping``, ``snapshot``, ``place_bets`` (the session read
again and the confirm rate shared with REST, then ``tables.services.placement.bet_place``) and ``chat.send``
(``tables.services.chat.chat_send``; its refusals come back as ``error`` frames with ``"frame": "chat.send"``).
Table events touch neither the database nor a thread; snapshots, bets and chat go through
``database_sync_to_async`` to one selector or service.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from baccarat_site import jsonlimits
from baccarat_site.accounts.selectors import session_user
from baccarat_site.cancelling import cancel_until_done
from baccarat_site.clock import server_time
from baccarat_site.errors import DomainError
from baccarat_site.jsonlimits import MAX_DEPTH
from tables import presence
from tables.broadcast import DirectWriter, daphne_protocol, direct_writer, text_frame
from tables.events import user_group
from tables.hub import (
    TABLE_EVENTS,
    WATCHER_LAYER_ALIAS,
    TableHub,
    frame_of,
    rejoin_seconds,
)
from tables.selectors.tables import player_snapshot, table_exists
from tables.services.chat import chat_send
from tables.services.placement import Placement, bet_place
from tables.services.rate import bet_rate_take
from tables.socketcap import PER_PLAYER, SocketSlot, address_of

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

MAX_FRAME_CHARS = 8192
RATE_PER_SECOND = 10.0
RATE_BURST = 20.0
MAX_REFUSED_BEFORE_CLOSE = 20
# Close codes. A server may only send 1000 or 3000-4999 (RFC 6455 reserves the rest for the protocol itself):
# daphne's autobahn refuses 1009 or 1011 from an application, and the socket then stays open, receiving
# nothing. The 4xxx codes echo the HTTP status or protocol code they stand for.
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_BIG = 4009  # the frame was larger than MAX_FRAME_CHARS (protocol: 1009)
CLOSE_FLOOD = 4429
CLOSE_SIGNED_OUT = 4401  # the session that opened the socket signed out, or its password changed (HTTP 401)
CLOSE_TOO_MANY_SOCKETS = 4430  # over WS_MAX_SOCKETS_PER_PLAYER or _PER_ADDRESS (4429 is the frame flood)


# Personal events arrive on user_<id>. ``round.settled`` reaches the player's sockets at its own table only; at
# their other tables it becomes a ``wallet.changed`` (the balance moved), as a confirm at any table is.
PERSONAL_EVENTS = frozenset({"round.settled", "wallet.changed"})


def _still_signed_in(session: Any, user_id: int) -> bool:
    """Whether the socket's session still exists and still signs in ``user_id``, an active account: read afresh,
    as the socket's user was read once, when it connected."""
    user = session_user(session_key=getattr(session, "session_key", None))
    return user is not None and user.pk == user_id


def _may_bet(session: Any, user_id: int) -> dict[str, Any] | None:
    """Before a socket's bet: is its player still signed in (not logged out, not disabled), and within the
    confirm rate that REST shares? None if so, else the error frame's body."""
    if not _still_signed_in(session, user_id):
        return {"code": "not_authenticated", "detail": "Your session has ended; sign in again to bet."}
    retry_after = bet_rate_take(user_id=user_id)
    if retry_after is not None:
        return {
            "code": "throttled",
            "detail": f"Too many confirms; try again in {retry_after:.1f} s.",
            "retry_after": round(retry_after, 3),
        }
    return None


def _confirm(
    session: Any, user: User, round_id: int, mode: str, bets: list[Any], key: str
) -> dict[str, Any] | Placement:
    """A socket's confirm in one trip to a worker thread: :func:`_may_bet`, then ``bet_place``. Returns the refusal's
    error body, or the Placement (a refused placement raises its DomainError). One thread hand-off and one
    database connection (with DB_POOL, one checkout) per confirm instead of two."""
    refusal = _may_bet(session, user.pk)
    if refusal is not None:
        return refusal
    return bet_place(user=user, round_id=round_id, mode=mode, bets=bets, idempotency_key=key)


try:  # daphne's WebSocket library; sends to a socket its client already closed raise this
    from autobahn.exception import Disconnected

    _DISCONNECTED: tuple[type[Exception], ...] = (Disconnected,)
except ImportError:  # pragma: no cover - daphne depends on autobahn
    _DISCONNECTED = ()


class GuardedJsonConsumer(AsyncJsonWebsocketConsumer):
    """A socket that takes JSON objects with a ``type`` from the browser and guards the door: a token bucket
    (``rate_per_second``, ``rate_burst``), a frame size cap, and an ``error`` frame for anything that is not a
    JSON object with a ``type``. Subclasses call :meth:`start_guard` in ``connect`` and handle ``receive_json``."""

    max_frame_chars = MAX_FRAME_CHARS
    rate_per_second = RATE_PER_SECOND
    rate_burst = RATE_BURST

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As Channels' ``dispatch``, less its ``aclose_old_connections`` before every message: a hop to the one
        thread that serves every ``database_sync_to_async`` of the process, to close the database connections of
        that thread. These consumers touch the database only through ``database_sync_to_async``, which closes them
        before and after every call already, so the hop cleaned nothing, and a page's heartbeat (a ``ping`` every
        5 s, 2,000 a second from 10,000 sockets) queued behind snapshot reads and bets for it."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send_json(self, content: Any, close: bool = False) -> None:
        """Send, unless the browser has already gone: a reply racing the client's own close is dropped (daphne
        raises ``Disconnected`` for it, which used to end in a traceback), as the disconnect follows anyway."""
        try:
            await super().send_json(content, close=close)
        except _DISCONNECTED:
            logger.debug("a reply to a socket that had just closed was dropped")

    async def take_socket_slot(self, user_id: int | None) -> bool:
        """After ``accept``: count this socket against its player's and its address's caps (tables.socketcap).
        Over either, an ``error`` frame ``too_many_sockets`` and the close CLOSE_TOO_MANY_SOCKETS; False then."""
        slot = SocketSlot(user_id=user_id, address=address_of(self.scope))
        refused = await slot.take()
        if refused is None:
            slot.hold()
            self._slot = slot
            return True
        if refused == PER_PLAYER:
            detail = f"Too many open connections for this player (at most {settings.WS_MAX_SOCKETS_PER_PLAYER})."
        else:
            detail = f"Too many open connections from this address (at most {settings.WS_MAX_SOCKETS_PER_ADDRESS})."
        await self.send_error("too_many_sockets", detail + " Close another tab first.")
        await self.close(code=CLOSE_TOO_MANY_SOCKETS)
        return False

    def release_socket_slot(self) -> None:
        slot: SocketSlot | None = getattr(self, "_slot", None)
        if slot is not None:
            del self._slot
            slot.drop()

    def start_guard(self) -> None:
        self._tokens = self.rate_burst
        self._stamp = time.monotonic()
        self._refused = 0

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        if not self._take_token():
            self._refused += 1
            if self._refused > MAX_REFUSED_BEFORE_CLOSE:
                await self.close(code=CLOSE_FLOOD)
            elif self._refused == 1 or self._refused % 5 == 0:
                await self.send_error("rate_limited", "Too many messages; slow down.")
            return
        self._refused = 0
        if text_data is None:
            await self.send_error("invalid_frame", "Frames must be JSON text.")
            return
        if len(text_data) > self.max_frame_chars:
            await self.send_error("frame_too_large", f"Frames are limited to {self.max_frame_chars} characters.")
            await self.close(code=CLOSE_TOO_BIG)
            return
        try:
            content = jsonlimits.loads(text_data)
        except ValueError:
            await self.send_error("invalid_json", f"The frame is not valid JSON (at most {MAX_DEPTH} levels deep).")
            return
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self.send_error("invalid_frame", 'A frame is a JSON object with a "type".')
            return
        await self.receive_json(content)

    async def send_error(self, code: str, detail: str) -> None:
        await self.send_json({"type": "error", "code": code, "detail": detail})

    def _take_token(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.rate_burst, self._tokens + (now - self._stamp) * self.rate_per_second)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class TableConsumer(GuardedJsonConsumer):
    table_id: int
    user: User | None = None
    # Under daphne: writes a table event's ready-made frame straight to this socket (tables.broadcast).
    writer: DirectWriter | None = None
    protocol: Any = None  # daphne's protocol object, for the slow-client cap when direct writes are off
    # Table events that arrive before the socket's first snapshot went out wait here (None once it has).
    backlog: list[tuple[Any, Any, dict[str, Any]]] | None = None
    ended = False  # closed with CLOSE_SIGNED_OUT

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        user = scope.get("user")
        if user is None or not user.is_authenticated:
            # A watcher gets table events from the process's TableHub only: no channel of its own
            # (no channel-layer receive per anonymous socket; the memory and wake-ups go with it).
            self.channel_layer_alias = WATCHER_LAYER_ALIAS
        await super().__call__(scope, receive, send)

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if not await database_sync_to_async(table_exists)(self.table_id):
            await self.close(code=CLOSE_NOT_FOUND)
            return
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        # Table events come through this process's TableHub; only personal ones through our own channel.
        self.groups = [user_group(self.user.pk)] if self.user is not None else []
        self.start_guard()
        self._joined = False
        await self.accept()
        if not await self.take_socket_slot(self.user.pk if self.user is not None else None):
            return
        self.writer = direct_writer(self.base_send)
        self.protocol = daphne_protocol(self.base_send)[0]
        self.backlog = []
        await TableHub.join(self)
        self._joined = True
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        if self.user is not None and not await database_sync_to_async(_still_signed_in)(
            self.scope.get("session"), self.user.pk
        ):
            # Signed out, its password changed, or the account deactivated since the gate read the user: the
            # ``session.ended`` was sent before this socket could hear it. Read now, after the join, so a sign-out
            # racing with this connect is either seen here or heard on ``user_<id>``. Closed as a sign-out is.
            self.ended = True
            await self.close(code=CLOSE_SIGNED_OUT)
            return
        if self.groups:  # channels_redis forgets group members after group_expiry: rejoin well before
            self._rejoin = asyncio.get_running_loop().call_later(rejoin_seconds(), self._schedule_rejoin)
        if self.user is not None:  # the lobby counts signed-in players at the table (tables.presence)
            self._presence = asyncio.ensure_future(presence.keep(self.table_id, self.user.pk, self.channel_name))
        snapshot = await self.send_snapshot()
        # The snapshot went first; the events that arrived meanwhile follow, less those it already contains
        # (a chat message may come twice, in the snapshot's ``chat`` and after it: the page keeps one per id).
        while self.backlog:
            epoch, seq, frame = self.backlog.pop(0)
            if snapshot is None or epoch != snapshot.get("epoch") or seq is None or seq > snapshot["seq"]:
                await self.base_send(frame)
        self.backlog = None

    async def send_json(self, content: Any, close: bool = False) -> None:
        """A reply (``pong``, ``snapshot``, ``error``, ``bets.confirmed``...) goes out as table events do, through
        the direct writer when daphne serves this socket (tables.broadcast), else through the ASGI send. Every
        socket's heartbeat gets a ``pong`` every 5 s: through the ASGI send, autobahn frames it again and
        Twisted registers the socket for writing and writes it on the next turn, about half of a heartbeat's
        cost in daphne with 10,000 sockets (bench/sockets_per_daphne.py). The order of frames is kept: both
        paths write to the transport as they are called."""
        if not close and self.writer is not None and self.write_direct(text_frame(json.dumps(content).encode())):
            return
        await super().send_json(content, close=close)

    def write_direct(self, frame: bytes) -> bool:
        """Write a ready WebSocket frame straight to daphne's transport (tables.broadcast): True when it was sent
        now or queued in order behind earlier bytes. False when this socket has no direct path, or when it just
        broke (a dependency changed?): the socket then uses the ASGI send from now on."""
        writer = self.writer
        if writer is None:
            return False
        try:
            return writer.write(frame)
        except Exception:
            self.writer = None
            logger.exception("table %s: direct write failed; using the ASGI send", self.table_id)
            return False

    async def disconnect(self, code: int) -> None:
        self.release_socket_slot()
        rejoin = getattr(self, "_rejoin", None)
        if rejoin is not None:
            rejoin.cancel()
        if getattr(self, "_presence", None) is not None:
            cancel_until_done(self._presence)
        if getattr(self, "_joined", False):
            TableHub.leave(self)

    # ── group events → frames ───────────────────────────────────────────────

    async def dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in TABLE_EVENTS or kind in PERSONAL_EVENTS:
            await self.forward(message)
            return
        await super().dispatch(message)

    async def session_ended(self, message: dict[str, Any]) -> None:
        """``session.ended`` on ``user_<id>`` (baccarat_site.accounts.services.sockets_close): the player signed
        out, or changed their password. Close with CLOSE_SIGNED_OUT, so nothing personal reaches this socket any
        more; a sign-out names its session, and only that session's sockets close."""
        ended = message.get("session_key")
        own = getattr(self.scope.get("session"), "session_key", None)
        if ended is not None and ended != own:
            return
        self.ended = True
        await self.close(code=CLOSE_SIGNED_OUT)

    async def forward(self, message: dict[str, Any]) -> None:
        if message["type"] in PERSONAL_EVENTS:
            if self.ended:  # closed for a sign-out: nothing personal, even before the disconnect arrives
                return
            other_table = message.get("table_id", self.table_id) != self.table_id
            if message["type"] == "round.settled" and other_table:
                keys = ("table_id", "round_id", "server_time")
                message = {"type": "wallet.changed", **{key: message[key] for key in keys if key in message}}
            # The table event sent before it (round.result before round.settled) may still be being written
            # to this process's sockets: let it reach this one first.
            hub = TableHub.find(self)
            if hub is not None:
                await hub.idle.wait()
        await self.send_json(frame_of(message))

    # ── client frames ───────────────────────────────────────────────────────

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content["type"]
        if kind == "ping":
            await self.send_json({"type": "pong", "server_time": server_time()})
        elif kind == "snapshot":
            await self.send_snapshot()
        elif kind == "place_bets":
            await self.place_bets(content)
        elif kind == "chat.send":
            await self.chat_send(content)
        else:
            await self.send_error("unknown_type", f"Unknown frame type {kind[:40]!r}.")

    async def send_snapshot(self) -> dict[str, Any] | None:
        try:
            hub = TableHub.of(self)
            snapshot = dict(await hub.snapshot())
            try:
                snapshot["chat"] = await hub.chat()
            except Exception:  # the chat must never keep a table from a socket
                logger.exception("table %s: the chat history could not be read", self.table_id)
                snapshot["chat"] = []
            if self.user is not None and not self.ended:
                snapshot.update(await database_sync_to_async(player_snapshot)(self.user, snapshot))
        except DomainError as error:
            await self.send_error(error.code, error.detail)
            return None
        snapshot["server_time"] = server_time()
        await self.send_json(snapshot)
        return snapshot

    async def place_bets(self, content: dict[str, Any]) -> None:
        if self.user is None:
            await self.send_error("not_authenticated", "Sign in to place bets.")
            return
        round_id, bets, key = content.get("round_id"), content.get("bets"), content.get("idempotency_key")
        mode = content.get("mode", "traditional")
        if isinstance(round_id, bool) or not isinstance(round_id, int):
            await self.send_error("invalid_request", "round_id must be an integer.")
            return
        if not isinstance(bets, list) or not all(isinstance(b, dict) for b in bets):
            await self.send_error("invalid_request", "bets must be a list of {type, amount}.")
            return
        if not isinstance(key, str) or not 0 < len(key) <= 100:
            await self.send_error("invalid_request", "idempotency_key must be a string of 1–100 characters.")
            return
        if not isinstance(mode, str):
            await self.send_error("invalid_mode", "mode must be traditional or no_commission.")
            return

        try:
            result = await database_sync_to_async(_confirm)(
                self.scope.get("session"), self.user, round_id, mode, bets, key
            )
        except DomainError as error:
            await self.send_json({"type": "error", **error.as_dict()})
            return
        except Exception:
            logger.exception("place_bets failed for user %s round %s", self.user.pk, round_id)
            await self.send_error("server_error", "The bets could not be placed; nothing was changed.")
            return
        if isinstance(result, dict):  # signed out, or over the confirm rate
            await self.send_json({"type": "error", **result})
            return
        await self.send_json(
            {"type": "bets.confirmed", "round_id": round_id, "idempotency_key": key, **result.as_body()}
        )

    async def chat_send(self, content: dict[str, Any]) -> None:
        """A player's message (tables.services.chat). Unlike a bet, the session is not read again per message: a
        sign-out or a password change closes the socket (``session_ended``), and the service reads the account's
        state (active, restricted, muted) from the database every time. Every refusal is an ``error`` frame with
        ``"frame": "chat.send"``, so the page shows it in the chat panel; the message itself reaches this socket
        as every other, through the table's ``chat.message``."""
        refusal: dict[str, Any] | None = None
        if self.user is None or self.ended:
            refusal = {"code": "not_authenticated", "detail": "Sign in to chat."}
        else:
            try:
                await database_sync_to_async(chat_send)(
                    user=self.user, table_id=self.table_id, text=content.get("text")
                )
            except DomainError as error:
                refusal = error.as_dict()
            except Exception:
                logger.exception("chat.send failed for user %s at table %s", self.user.pk, self.table_id)
                refusal = {"code": "server_error", "detail": "The message could not be sent."}
        if refusal is not None:
            await self.send_json({"type": "error", "frame": "chat.send", **refusal})

    # ── plumbing ────────────────────────────────────────────────────────────

    def _schedule_rejoin(self) -> None:
        self._rejoin_task = asyncio.ensure_future(self._rejoin_groups())
        self._rejoin = asyncio.get_running_loop().call_later(rejoin_seconds(), self._schedule_rejoin)

    async def _rejoin_groups(self) -> None:
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
