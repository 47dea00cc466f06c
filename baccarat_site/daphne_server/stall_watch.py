"""A watchdog for the two places where a whole daphne can stall, logging where it stands when it does.

A daphne serves everything from one event loop, and runs the synchronous code of every socket (the session and
user lookup of each handshake, the consumers' ORM calls) in one thread: asgiref's thread-sensitive executor (an HTTP
request gets a thread of its own from Django's ``ThreadSensitiveContext``). If the loop is held, everything waits;
if that thread is, every socket's handshake does, and daphne refuses handshakes it could not finish in 5 s. Nothing
said why: the browser suite once saw a whole casino silent for 10 s. :class:`StallWatch` beats on the loop and
sends a no-op to that thread every second; a thread of its own logs a warning with the stuck thread's stack when
either has not answered for :data:`STALL_SECONDS`, and again with the stall's length when it answers.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import traceback

from asgiref.sync import sync_to_async

logger = logging.getLogger(__name__)

#: How long the loop or the synchronous thread may go without answering before a stall is logged: daphne's
#: handshake timeout (``--websocket_connect_timeout``), past which it starts refusing sockets.
STALL_SECONDS = 5.0
#: How often the watch beats on the loop and probes the synchronous thread.
BEAT_SECONDS = 1.0


class StallWatch:
    def __init__(
        self, loop: asyncio.AbstractEventLoop, stall_seconds: float = STALL_SECONDS, beat_seconds: float = BEAT_SECONDS
    ) -> None:
        self.loop = loop
        self.stall_seconds = stall_seconds
        self.beat_seconds = beat_seconds
        self.loop_thread: int | None = None
        self.sync_thread: int | None = None
        self.last_beat = time.monotonic()
        self.probe_sent: float | None = None  # when the no-op now waiting for the synchronous thread was sent
        self.stalled: dict[str, float] = {}  # what is stalled now → since when
        self.probe: asyncio.Task[None] | None = None  # held: the loop keeps only a weak reference to a task
        self.stopped = threading.Event()

    def start(self) -> None:
        self.loop.call_soon_threadsafe(self._beat)
        threading.Thread(target=self._watch, name="stall-watch", daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _beat(self) -> None:
        if self.stopped.is_set():
            return
        self.loop_thread = threading.get_ident()
        self.last_beat = time.monotonic()
        if self.probe_sent is None:
            self.probe_sent = self.last_beat
            self.probe = self.loop.create_task(sync_to_async(self._probe_ran, thread_sensitive=True)())
        self.loop.call_later(self.beat_seconds, self._beat)

    def _probe_ran(self) -> None:
        self.sync_thread = threading.get_ident()
        self.probe_sent = None

    def _watch(self) -> None:
        while not self.stopped.wait(self.beat_seconds / 4):
            self.check(time.monotonic())

    def check(self, now: float) -> None:
        """Log a stall that has just passed :attr:`stall_seconds`, or one that has just ended."""
        waiting: dict[str, tuple[float | None, int | None]] = {
            "event loop": (self.last_beat, self.loop_thread),
            "synchronous thread": (self.probe_sent, self.sync_thread),
        }
        for what, (since, thread) in waiting.items():
            if since is not None and now - since > self.stall_seconds:
                if what in self.stalled:
                    continue
                self.stalled[what] = since
                logger.warning(
                    "daphne's %s has not answered for %.1f s; it is at:\n%s", what, now - since, _stack_of(thread)
                )
            elif what in self.stalled:
                logger.warning("daphne's %s answers again after %.1f s", what, now - self.stalled.pop(what))


def _stack_of(thread: int | None) -> str:
    frame = sys._current_frames().get(thread) if thread is not None else None
    return "".join(traceback.format_stack(frame)) if frame is not None else "  (its thread is not known yet)\n"
