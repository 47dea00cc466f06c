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
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from daphne.cli import CommandLineInterface
from daphne.server import Server

from baccarat_site.daphne_server.server import (
    OLDEST_GENERATION_EVERY,
    InputQueue,
    LeanCommandLineInterface,
    LeanServer,
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
