"""baccarat_site.daphne_server: daphne with a lighter input queue per connection.

The queue must behave as daphne's ``asyncio.Queue`` does for the two calls daphne makes (``put_nowait`` from the
protocol, ``get`` from the application), hold nothing while idle, and the server must still be daphne's own apart
from the queue: if a new daphne changes ``create_application``, the copy here is out of date and this fails.
"""

from __future__ import annotations

import ast
import asyncio
import gc
import inspect
import re
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest
from daphne.cli import CommandLineInterface
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from twisted.internet.testing import StringTransport
from twisted.web.http import HTTPChannel, Request

from baccarat_site.daphne_server.server import (
    OLDEST_GENERATION_EVERY,
    InputQueue,
    LeanCommandLineInterface,
    LeanServer,
    release_upgrade,
    tune_garbage_collector,
)

ROOT = Path(__file__).resolve().parents[2]


def run(coroutine):
    return asyncio.run(coroutine)


def test_items_come_out_in_the_order_they_went_in_and_a_waiting_get_gets_the_next_one():
    async def scenario():
        queue = InputQueue()
        for n in range(5):
            queue.put_nowait(n)
        assert queue.qsize() == 5
        assert [await queue.get() for _ in range(5)] == [0, 1, 2, 3, 4]
        waiting = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        assert not waiting.done()
        queue.put_nowait("connect")
        assert await asyncio.wait_for(waiting, 1) == "connect"
        assert queue.empty()

    run(scenario())


def test_several_getters_are_served_in_the_order_they_asked():
    async def scenario():
        queue = InputQueue()
        getters = [asyncio.ensure_future(queue.get()) for _ in range(3)]
        await asyncio.sleep(0)
        for item in "abc":
            queue.put_nowait(item)
        assert await asyncio.gather(*getters) == ["a", "b", "c"]

    run(scenario())


def test_a_getter_cancelled_after_it_was_woken_passes_the_item_to_the_next_one():
    """asyncio.Queue's rule: an item a cancelled getter was woken for is not lost."""

    async def scenario():
        queue = InputQueue()
        first = asyncio.ensure_future(queue.get())
        second = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        queue.put_nowait("frame")  # wakes the first getter...
        first.cancel()  # ...which is cancelled before it runs
        assert await asyncio.wait_for(second, 1) == "frame"
        with pytest.raises(asyncio.CancelledError):
            await first
        assert queue.empty()

    run(scenario())


def test_a_cancelled_getter_that_was_never_woken_leaves_nothing_behind():
    async def scenario():
        queue = InputQueue()
        getter = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        getter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await getter
        assert queue._getters is None
        queue.put_nowait("later")
        assert await queue.get() == "later"

    run(scenario())


def test_an_idle_queue_holds_no_container_and_a_waiting_one_only_a_small_list():
    async def scenario():
        queue = InputQueue()
        queue.put_nowait({"type": "websocket.connect"})
        await queue.get()
        assert queue._items is None
        assert queue._getters is None
        waiting = asyncio.ensure_future(queue.get())
        await asyncio.sleep(0)
        size = sys.getsizeof(queue) + sys.getsizeof(queue._getters)
        waiting.cancel()
        return size

    held = run(scenario())
    daphne_queue = asyncio.Queue()
    deques = [daphne_queue._queue, daphne_queue._getters, daphne_queue._putters, daphne_queue._finished._waiters]
    assert held < sum(map(sys.getsizeof, deques)) / 5


def _body_without_docstring(function) -> str:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def test_create_application_is_daphnes_with_only_the_queue_changed():
    daphne_source = _body_without_docstring(Server.create_application)
    ours = _body_without_docstring(LeanServer.create_application)
    queue_call = ast.dump(ast.parse("asyncio.Queue()", mode="eval").body)
    lean_call = ast.dump(ast.parse("InputQueue()", mode="eval").body)
    assert queue_call in daphne_source, "daphne no longer makes an asyncio.Queue per connection: re-read it"
    assert daphne_source.replace(queue_call, lean_call) == ours


def test_the_command_line_is_daphnes_with_the_lean_server():
    assert issubclass(LeanCommandLineInterface, CommandLineInterface)
    assert LeanCommandLineInterface.server_class is LeanServer
    assert issubclass(LeanServer, Server)


def test_the_oldest_generation_is_collected_a_hundred_times_less_often_and_the_others_as_before():
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == (before[0], before[1], 100 * 10)
    finally:
        gc.set_threshold(*before)


def test_the_module_the_processes_run_tunes_the_collector_before_serving(tmp_path):
    """``python -m baccarat_site.daphne_server``: the collector is tuned in the process that serves."""
    probe = (
        "import gc, runpy, sys\n"
        "from baccarat_site.daphne_server import server\n"
        "server.LeanCommandLineInterface.entrypoint = classmethod(lambda cls: print(gc.get_threshold()[2]))\n"
        "runpy.run_module('baccarat_site.daphne_server', run_name='__main__')\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == str(OLDEST_GENERATION_EVERY)


def test_daphne_calls_nothing_of_its_queues_but_put_nowait_and_get():
    """InputQueue has only what daphne uses: a new daphne calling anything else of a connection's queue
    (``get_nowait``, ``task_done``…) would fail at run time, so this fails first."""
    package = Path(inspect.getfile(Server)).parent
    used = set()
    for module in ("server.py", "ws_protocol.py", "http_protocol.py"):
        used |= set(re.findall(r"(?:application_queue|input_queue)\.(\w+)", (package / module).read_text()))
    assert used == {"put_nowait", "get"}


class ProducingTransport:
    def __init__(self, producer: object) -> None:
        self.producer = producer

    def unregisterProducer(self) -> None:
        self.producer = None


def upgraded_channel() -> tuple[HTTPChannel, Request]:
    """Twisted's HTTP channel and its request, as daphne's upgrade leaves them: each pointing at the other."""
    channel = HTTPChannel()
    channel.transport = StringTransport()
    request = Request(channel)
    channel.requests.append(request)
    return channel, request


def test_the_upgrade_request_is_let_go_of_and_freed_at_once_without_the_garbage_collector():
    """The channel stayed its transport's producer after daphne's upgrade, keeping the request alive for the
    socket's life; and the two refer to each other, so only a full collection would free them."""
    channel, request = upgraded_channel()
    transport = ProducingTransport(channel)
    gone = [weakref.ref(channel), weakref.ref(request)]
    del request
    gc.disable()
    try:
        release_upgrade(transport, channel)
        assert transport.producer is None
        del channel
        assert [ref() for ref in gone] == [None, None]
    finally:
        gc.enable()


def test_a_socket_that_closed_first_still_has_its_cycle_broken_and_another_producer_is_left_alone():
    channel, request = upgraded_channel()
    other = object()
    transport = ProducingTransport(other)  # not the channel (a closed socket's transport holds none)
    release_upgrade(transport, channel)
    assert transport.producer is other
    assert channel.requests == []
    assert request.channel is None


def lean_server() -> LeanServer:
    server = LeanServer(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"], signal_handlers=False)
    server.connections = {}  # what Server.run() starts with (not run here)
    return server


def test_every_websocket_lets_go_of_its_upgrade_request_right_after_daphnes_upgrade():
    """Done by the server for every socket (tables, lobby, dealer console, one refused at once), after daphne's
    upgrade has used the channel for the last time, not before."""

    async def scenario():
        server = lean_server()
        channel, request = upgraded_channel()
        protocol = WebSocketProtocol()
        protocol.transport = ProducingTransport(channel)
        server.protocol_connected(protocol)  # daphne's onConnect, inside the upgrade
        assert protocol.transport.producer is channel
        await asyncio.sleep(0)
        assert protocol.transport.producer is None
        assert request.channel is None

    run(scenario())


def test_a_plain_http_request_is_not_touched():
    async def scenario():
        server = lean_server()
        channel, request = upgraded_channel()
        channel.transport = ProducingTransport(channel)
        server.protocol_connected(request)
        await asyncio.sleep(0)
        assert channel.transport.producer is channel
        assert request.channel is channel

    run(scenario())
