"""tables.broadcast: one table event framed once, the same bytes written to every daphne socket.

Checked against the real libraries: the frame must be byte for byte what autobahn (daphne's WebSocket
implementation) writes for the same message, and the writer must be found behind the exact ``send``
daphne and Channels' session middleware hand a consumer, and be declined whenever the plain path is
not safe.
"""

from __future__ import annotations

import functools
import json

import pytest
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from channels.sessions import InstanceSessionWrapper
from daphne.server import Server
from twisted.internet.testing import StringTransport

from baccarat_site.daphne_server.server import LeanServer
from tables.broadcast import DirectWriter, direct_writer, text_frame

HANDSHAKE = (
    b"GET /ws/tables/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def open_protocol():
    """An autobahn server protocol after a real opening handshake, writing into a StringTransport."""
    factory = WebSocketServerFactory()
    factory.protocol = WebSocketServerProtocol  # the Twisted protocol daphne's WebSocketProtocol extends
    protocol = factory.buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.dataReceived(HANDSHAKE)
    assert protocol.state == protocol.STATE_OPEN
    transport.clear()
    return protocol, transport


@pytest.mark.parametrize("size", [0, 1, 125, 126, 3410, 65535, 65536, 200_000])
def test_the_frame_is_byte_for_byte_what_autobahn_writes_for_the_same_text(size):
    text = json.dumps({"type": "round.result", "pad": "x" * size})
    protocol, transport = open_protocol()
    protocol.sendMessage(text.encode(), isBinary=False)
    by_autobahn = transport.value()

    protocol, transport = open_protocol()
    assert DirectWriter(protocol).write(text_frame(text.encode())) is True
    assert transport.value() == by_autobahn


def daphne_send(protocol, server_class=Server):
    """The ``send`` a consumer gets under daphne and AuthMiddlewareStack (daphne's partial, session-wrapped)."""
    server = server_class(
        application=None, endpoints=["tcp:port=0:interface=127.0.0.1"], signal_handlers=False
    )  # not run
    raw = functools.partial(server.handle_reply, protocol)
    return InstanceSessionWrapper({"type": "websocket", "cookies": {}}, raw).send


@pytest.mark.parametrize("server_class", [Server, LeanServer], ids=["daphne", "project"])
def test_the_writer_is_found_behind_daphnes_send_and_channels_session_wrapper(server_class):
    protocol, transport = open_protocol()
    writer = direct_writer(daphne_send(protocol, server_class))
    assert writer is not None
    assert writer.protocol is protocol
    assert writer.write(text_frame(b'{"type":"card.dealt"}'))
    assert transport.value().endswith(b'{"type":"card.dealt"}')


def test_any_other_send_gets_no_writer():
    async def plain_send(message):
        return None

    assert direct_writer(plain_send) is None
    assert direct_writer(functools.partial(plain_send)) is None
    assert direct_writer(InstanceSessionWrapper({"type": "websocket", "cookies": {}}, plain_send).send) is None


def test_the_writer_declines_a_socket_that_is_not_open_compressed_or_has_queued_frames():
    protocol, transport = open_protocol()
    writer = DirectWriter(protocol)

    protocol.send_queue.append((b"earlier", False))
    assert writer.write(b"frame") is False
    protocol.send_queue.clear()

    protocol._perMessageCompress = object()
    assert writer.write(b"frame") is False
    protocol._perMessageCompress = None

    protocol.state = protocol.STATE_CLOSING
    assert writer.write(b"frame") is False
    assert transport.value() == b""


def test_a_socket_closed_before_it_joined_gets_no_writer_and_says_nothing_of_the_process(monkeypatch, caplog):
    """The first socket's answer is logged as the process's: one that closed during a connect storm said
    "direct writes OFF … no attribute 'socket'" although every other socket used them."""
    from tables import broadcast

    monkeypatch.setattr(broadcast, "_status_logged", False)
    protocol, transport = open_protocol()
    transport.disconnected = True
    with caplog.at_level("INFO", logger="tables.broadcast"):
        assert direct_writer(daphne_send(protocol)) is None
    assert caplog.records == []
    assert broadcast._status_logged is False
