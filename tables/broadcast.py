"""Write one table event to many sockets: frame it once, write the same bytes to each.

A server-to-client WebSocket text frame is the same bytes for every client (servers do not mask
frames, and no compression is negotiated here), so a table event can be framed once and the bytes
written to each socket's transport, as ``websockets.broadcast`` does. Going through the ASGI
``send`` instead costs, for every socket: Channels' session wrapper (which acts only on HTTP
responses), daphne's ``handle_reply``, and autobahn's ``sendMessage``, which frames the message
again and formats debug-log arguments even when debug logging is off. With thousands of sockets
on a table that was three quarters of the process's CPU per event (see bench/fanout.py).

:func:`direct_writer` finds daphne's protocol object behind a consumer's ``send``; it returns None
for anything else (another ASGI server, the test communicator), and :meth:`DirectWriter.write`
declines (returns False) whenever the plain path is not safe: the socket is not open, the
protocol negotiated per-message compression, or autobahn has frames queued that must go first.
Callers then use the ordinary ``send``. Ordering is kept: both paths write to the transport
synchronously, in the order they are called.

It reaches into daphne's, autobahn's and Twisted's objects, so those three are pinned in
requirements.txt, and it is guarded three ways: ``BROADCAST_DIRECT_WRITES=off`` turns it off; any
error while writing turns it off for that socket (the caller falls back to the ASGI ``send`` and the
log says why); and the first socket of each process logs whether the fast path is in use
(``tests/tables/test_broadcast_canary.py`` fails loudly, under real daphne, when it is not).

A client that stops reading would make the server buffer its frames without bound. Whichever path
wrote them, once more than ``BROADCAST_MAX_BUFFER_BYTES`` (1 MiB) wait for one socket, it is
dropped: the browser reconnects and resynchronises from a snapshot.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import struct
from typing import Any

from autobahn.websocket.protocol import WebSocketServerProtocol
from daphne.server import Server as DaphneServer
from twisted.internet import tcp

logger = logging.getLogger(__name__)
_TEXT_FIN = 0x81
#: Bytes allowed to wait in the server for one socket before it is dropped as too slow.
MAX_BUFFER_BYTES = int(os.environ.get("BROADCAST_MAX_BUFFER_BYTES", str(1 << 20)))
_status_logged = False


def direct_writes_enabled() -> bool:
    return os.environ.get("BROADCAST_DIRECT_WRITES", "on").strip().lower() not in {"0", "off", "false", "no"}


def buffered_bytes(transport: Any) -> int:
    """Bytes Twisted holds for ``transport`` that the kernel has not taken yet (0 if it cannot tell)."""
    try:
        return len(transport.dataBuffer) - transport.offset + transport._tempDataLen
    except (AttributeError, TypeError):
        return 0


def too_slow(protocol: Any) -> bool:
    """Drop the connection if more than ``MAX_BUFFER_BYTES`` wait for it; True if it was dropped."""
    transport: Any = getattr(protocol, "transport", None)
    pending = buffered_bytes(transport) if transport is not None else 0
    if pending <= MAX_BUFFER_BYTES:
        return False
    logger.warning("dropping a WebSocket that stopped reading: %d bytes waiting for it", pending)
    with contextlib.suppress(Exception):
        transport.abortConnection()
    return True


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented WebSocket text frame (RFC 6455 §5.2) carrying ``payload`` (UTF-8)."""
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", _TEXT_FIN, n)
    elif n < 1 << 16:
        header = struct.pack("!BBH", _TEXT_FIN, 126, n)
    else:
        header = struct.pack("!BBQ", _TEXT_FIN, 127, n)
    return header + payload


class DirectWriter:
    """Writes ready-made frames straight to one daphne WebSocket connection's transport."""

    __slots__ = ("_open_state", "protocol")

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self._open_state = protocol.STATE_OPEN

    def write(self, frame: bytes) -> bool:
        """Write ``frame``; False (nothing written) when the caller must use the ordinary send instead.
        True also when the socket was dropped for falling too far behind (nothing more to do for it)."""
        protocol = self.protocol
        if (
            protocol.state != self._open_state
            or getattr(protocol, "_perMessageCompress", None) is not None
            or getattr(protocol, "send_queue", None)
            or protocol.transport is None
        ):
            return False
        if too_slow(protocol):
            return True
        _write_now(protocol.transport, frame)
        return True


def _write_now(transport: Any, frame: bytes) -> None:
    """``transport.write(frame)``, but sent at once when nothing is queued ahead of it.

    Twisted's ``write`` only buffers: it registers the socket with the event loop, writes on the
    next turn and unregisters (three system calls and much Python per socket). When the transport
    is a plain TCP or Unix socket (not TLS) with an empty buffer, a non-blocking ``send`` now
    keeps the order and costs one call; whatever the kernel does not take goes to Twisted's buffer.
    """
    if (
        not isinstance(transport, tcp.Connection)
        or getattr(transport, "TLS", False)
        or not transport.connected
        or transport.disconnecting
        or transport._writeDisconnected
        or transport._tempDataLen
        or len(transport.dataBuffer) != transport.offset
    ):
        transport.write(frame)
        return
    try:
        sent = transport.socket.send(frame)
    except (BlockingIOError, InterruptedError):
        sent = 0
    except OSError:  # reset or closed: Twisted notices on its own write and tears down as usual
        transport.write(frame)
        return
    if sent < len(frame):
        transport.write(frame[sent:])


def direct_writer(send: Any) -> DirectWriter | None:
    """The direct writer behind an ASGI ``send`` served by daphne, or None if ``send`` is anything else
    (or direct writes are turned off). The first call of a process logs which it is."""
    global _status_logged
    protocol, why = daphne_protocol(send)
    writer = None
    if protocol is not None and getattr(protocol.transport, "disconnected", False):
        # Closed before it joined (a connect storm's handshake timeouts): nothing to write to, and nothing to say
        # about the process (its transport has lost the attributes the check below reads).
        return None
    if protocol is not None and not direct_writes_enabled():
        why = "turned off (BROADCAST_DIRECT_WRITES)"
    elif protocol is not None:
        try:
            writer = DirectWriter(protocol)
            _no_delay(protocol.transport)
        except Exception as error:  # an attribute moved in a new autobahn or Twisted
            writer, why = None, f"autobahn/Twisted changed: {error!r}"
    if not _status_logged:
        _status_logged = True
        if writer is not None:
            logger.info("table fan-out: direct writes on")
        else:
            logger.warning("table fan-out: direct writes OFF, every frame goes through the ASGI send: %s", why)
    return writer


def daphne_protocol(send: Any) -> tuple[Any, str]:
    """daphne's autobahn protocol object behind an ASGI ``send``, or None and why not."""
    for _ in range(8):  # unwrap Channels' session wrapper(s): InstanceSessionWrapper.send → real_send
        owner = getattr(send, "__self__", None)
        inner = getattr(owner, "real_send", None)
        if inner is None:
            break
        send = inner
    if not isinstance(send, functools.partial) or len(send.args) != 1:
        return None, "not daphne's send (another server, or a test communicator)"
    server = getattr(send.func, "__self__", None)
    if getattr(send.func, "__name__", "") != "handle_reply" or not isinstance(server, DaphneServer):
        return None, "daphne's send has changed shape"
    protocol = send.args[0]
    if not isinstance(protocol, WebSocketServerProtocol):
        return None, "the protocol is not autobahn's WebSocketServerProtocol"
    return protocol, "on"


def _no_delay(transport: Any) -> None:
    """Turn Nagle's algorithm off for a live table's socket, as asyncio does for every TCP socket and
    Twisted (so daphne) does not: a card must not wait for the client's ACK of the previous frame."""
    set_no_delay = getattr(transport, "setTcpNoDelay", None)
    if set_no_delay is not None:
        with contextlib.suppress(OSError):  # not a TCP socket (a Unix socket, say): nothing to turn off
            set_no_delay(True)
