"""A cancelled receive of the project's channel layer ends at once, even when a cancellation is lost below it, as
Python 3.11's ``asyncio.wait_for`` loses one in redis-py's send (baccarat_site.channel_layer); with channels_redis's
own layer such a receive went on popping until daphne killed the consumer, 10 s after its socket closed."""

from __future__ import annotations

import asyncio
import time
import uuid

from django.conf import settings
from redis.asyncio.connection import AbstractConnection

from baccarat_site.channel_layer import RedisChannelLayer


def _layer() -> RedisChannelLayer:
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    return RedisChannelLayer(hosts=config["hosts"], prefix=f"test-layer-{uuid.uuid4().hex[:8]}")


def test_a_cancelled_receive_ends_even_when_the_first_cancellation_is_lost(monkeypatch):
    send_packed_command = AbstractConnection.send_packed_command
    lost: list[float] = []
    sending: list[asyncio.Event] = []  # set while a send is under way

    async def send_losing_one_cancellation(self, command, check_health=True):
        # The send takes a moment; a cancellation arriving meanwhile is lost once, the send completing, as 3.11's
        # wait_for does when the cancellation and the send's end meet.
        try:
            sending[0].set()
            await asyncio.sleep(0.2)
        except asyncio.CancelledError:
            if lost:
                raise
            lost.append(time.monotonic())
        await send_packed_command(self, command, check_health)

    # On the class every connection inherits it from: the embedded Redis is reached over a Unix socket
    # (UnixDomainSocketConnection), a machine's over TCP (Connection).
    monkeypatch.setattr(AbstractConnection, "send_packed_command", send_losing_one_cancellation)

    async def scenario() -> tuple[bool, dict[str, object]]:
        layer = _layer()
        try:
            gone, other = await layer.new_channel(), await layer.new_channel()
            sending.append(asyncio.Event())
            receiving = asyncio.ensure_future(layer.receive(gone))
            await asyncio.wait_for(sending[0].wait(), timeout=10)  # the receive's first send is under way
            receiving.cancel()  # once: the receive must end by itself, no second cancellation from here
            # Waits without cancelling again; the bound only keeps a receive that goes on popping from hanging
            # the run (how long the end takes is no part of the test).
            await asyncio.wait([receiving], timeout=30)
            ended = receiving.done() and receiving.cancelled()
            # The process's receive lock is free again: another socket's message still arrives.
            await layer.send(other, {"type": "chat.message", "text": "hello"})
            message = await asyncio.wait_for(layer.receive(other), timeout=3)
            return ended, message
        finally:
            await layer.flush()

    ended, message = asyncio.run(scenario())
    assert lost, "the cancellation never met a send: the test did not provoke what it is about"
    assert ended, "the receive went on after its cancellation"
    assert message == {"type": "chat.message", "text": "hello"}


def test_the_settings_use_this_layer():
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "baccarat_site.channel_layer.RedisChannelLayer"
