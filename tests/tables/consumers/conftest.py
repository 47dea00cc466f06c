"""Consumer tests end right after their sockets disconnect. Let the background work that follows (a table
hub leaving its group, channel-layer reads being cancelled) finish on the test's own event loop before
pytest-asyncio closes it, instead of cutting Redis commands off mid-flight at loop shutdown."""

from __future__ import annotations

import asyncio

import pytest


@pytest.fixture(autouse=True)
async def _background_work_finished():
    yield
    current = asyncio.current_task()
    for _ in range(10):
        others = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
        if not others:
            return
        _done, pending = await asyncio.wait(others, timeout=0.5)
        for task in pending:  # Python 3.11's wait_for inside redis-py can swallow one cancellation
            if task.cancelling():
                task.cancel()
