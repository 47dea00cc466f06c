"""daphne's server and command line with three changes (``python -m baccarat_site.daphne_server`` runs them).

The first: the queue each connection's messages wait in for the application. daphne gives every
connection an ``asyncio.Queue`` for as long as it is open; that queue is four ``collections.deque`` (its items,
its getters, its putters, and its ``join`` event's waiters), about 3 KiB of every idle WebSocket's memory
(tracemalloc, bench/sockets_per_daphne.py: 3.05 of 32 KiB of Python objects a socket). daphne only ever calls the
queue's ``put_nowait`` (the protocol, for each message from the client) and ``get`` (the application's
``receive``), so :class:`InputQueue` is those two, FIFO and unbounded like daphne's, holding a container only
while it holds or awaits something.

daphne's CLI lets a subclass choose the server class (``CommandLineInterface.server_class``); the server's
``create_application`` is daphne 4.2's with the queue swapped (``tests/foundation/test_daphne_server.py`` checks
that daphne's method is still the one this copies).

The second: the garbage collector's oldest generation is looked at a hundred times less often
(:func:`tune_garbage_collector`). A daphne holding 10,000 sockets tracks about 1.1 million objects, nearly all
of them the sockets' own and long-lived; with CPython's default thresholds a full collection ran every 8–10 s
while rounds played, held the event loop 0.9–1.2 s each time and freed nothing (``gc.callbacks``,
bench/sockets_per_daphne.py), so one round in two reached its players one to three seconds late. The cyclic
garbage a socket used to leave (its upgrade request, below) is now freed as the socket opens, and a closed
socket leaves about six objects, so collecting the oldest generation rarely costs little memory.

The third: every WebSocket lets go of the HTTP request it was upgraded from (:func:`release_upgrade`).

The fourth: a watch logs where the event loop or the synchronous thread stands when either stops answering
(:mod:`baccarat_site.daphne_server.stall_watch`).
"""

from __future__ import annotations

import asyncio
import collections
import gc
from functools import partial
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server, twisted_loop
from daphne.ws_protocol import WebSocketProtocol
from twisted.web.http import HTTPChannel

from baccarat_site.daphne_server.stall_watch import StallWatch


class InputQueue:
    """An unbounded FIFO queue with asyncio.Queue's ``put_nowait`` and ``get``, and nothing allocated while it is
    empty and unwaited-for. Any number of getters, served in order."""

    __slots__ = ("_getters", "_items")

    def __init__(self) -> None:
        self._items: collections.deque[Any] | None = None
        # A list, not a deque: a socket's application waits in ``get`` all its idle life, and an empty deque is
        # 0.7 KiB where a list of one is 64 bytes. There is one getter (the application's receive) in practice.
        self._getters: list[asyncio.Future[None]] | None = None

    def qsize(self) -> int:
        return len(self._items) if self._items else 0

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = collections.deque()
        self._items.append(item)
        self._wake_next()

    async def get(self) -> Any:
        while not self._items:
            getter = asyncio.get_running_loop().create_future()
            if self._getters is None:
                self._getters = []
            self._getters.append(getter)
            try:
                await getter
            except BaseException:
                getter.cancel()
                if self._getters is not None and getter in self._getters:
                    self._getters.remove(getter)
                if self._items and not getter.cancelled():
                    self._wake_next()  # it was woken for an item it will not take: the next getter takes it
                raise
            finally:
                if not self._getters:
                    self._getters = None
        item = self._items.popleft()
        if not self._items:
            self._items = None
        return item

    def _wake_next(self) -> None:
        while self._getters:
            getter = self._getters.pop(0)
            if not getter.done():
                getter.set_result(None)
                return


def release_upgrade(transport: Any, channel: HTTPChannel) -> None:
    """Let go of the HTTP request a WebSocket was upgraded from.

    Twisted's ``HTTPChannel`` registers itself as its transport's producer, and daphne hands the transport to the
    WebSocket protocol without unregistering it: the channel, its request, the request's headers and body buffer
    then lived as long as the socket, about 6 KiB of each idle socket's ~32 KiB of Python objects (tracemalloc,
    bench/sockets_per_daphne.py). It only ever paused reading from a client whose frames were not being taken; a
    client that stops reading is dropped anyway (``tables.broadcast.too_slow``).

    The channel and its request also refer to each other (``channel.requests``, ``request.channel``): a cycle
    only a full garbage collection would free, 22 objects a socket (``gc.DEBUG_SAVEALL``), which with the oldest
    generation collected rarely would wait. Breaking it frees them at once, also for a socket that closed before
    this ran (its transport has let go of the channel already, the cycle is still there)."""
    if transport.producer is channel:
        transport.unregisterProducer()
    for request in channel.requests:
        request.channel = None
    channel.requests = []


class LeanServer(Server):
    """daphne's server with :class:`InputQueue` as each application's input queue, every WebSocket's upgrade
    request let go of (:func:`release_upgrade`), and a watch that logs where the loop or the synchronous thread
    stands when either stalls (:mod:`baccarat_site.daphne_server.stall_watch`)."""

    def run(self) -> None:
        StallWatch(twisted_loop).start()
        super().run()

    def protocol_connected(self, protocol: Any) -> None:
        super().protocol_connected(protocol)
        # daphne's WebSocket protocol reports itself here from its onConnect, in the middle of the upgrade: the
        # transport's producer is still the HTTP channel, which daphne's upgrade uses once more when the protocol
        # has taken the connection (``_networkProducer.resumeProducing()``); the release runs after that.
        if isinstance(protocol, WebSocketProtocol):
            channel = getattr(protocol.transport, "producer", None)
            if isinstance(channel, HTTPChannel):
                asyncio.get_event_loop().call_soon(release_upgrade, protocol.transport, channel)

    def create_application(self, protocol: Any, scope: dict[str, Any]) -> InputQueue | None:
        # daphne 4.2's Server.create_application, with InputQueue for asyncio.Queue.
        assert "application_instance" not in self.connections[protocol]
        input_queue = InputQueue()
        scope.setdefault("asgi", {"version": "3.0"})
        application_instance = self.application(
            scope=scope,
            receive=input_queue.get,
            send=partial(self.handle_reply, protocol),
        )
        if protocol not in self.connections:
            return None
        self.connections[protocol]["application_instance"] = asyncio.ensure_future(
            application_instance,
            loop=asyncio.get_event_loop(),
        )
        return input_queue


#: Younger collections between two looks at the oldest generation (CPython's default is 10).
OLDEST_GENERATION_EVERY = 1000


def tune_garbage_collector() -> None:
    """Collect the oldest generation a hundred times less often; the two younger generations as CPython does."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, OLDEST_GENERATION_EVERY)


class LeanCommandLineInterface(CommandLineInterface):
    server_class = LeanServer
