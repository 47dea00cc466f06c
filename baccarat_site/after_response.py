"""Work an HTTP request leaves until its response has been sent (WSGI), so the client does not wait for it.

A confirm's ``bets.totals`` broadcast (``tables.events.bets_changed``) is a Redis round trip on every confirm
and, once per quiet period of a round (the leading edge), an aggregate over the round's bets and a channel-layer
send: none of it is part of the answer, all of it used to be in the confirm's latency. Under gunicorn it now runs
in the same worker right after the response's last byte went out (the WSGI server calls the response's
``close()`` then), before the worker takes its next request.

Outside a WSGI request (daphne, a WebSocket consumer, a Celery task, a command, the test client) there is
nothing to wait for: :func:`after_response` runs the work at once, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any

logger = logging.getLogger(__name__)

_pending: ContextVar[list[Callable[[], None]] | None] = ContextVar("baccarat_after_response", default=None)


def after_response(work: Callable[[], None]) -> None:
    """Run ``work`` once this WSGI request's response has been sent; at once outside one. Best effort: an
    exception is logged, never raised (the response is already on its way)."""
    pending = _pending.get()
    if pending is None:
        _run([work])
    else:
        pending.append(work)


def _run(works: list[Callable[[], None]]) -> None:
    for work in works:
        try:
            work()
        except Exception:
            logger.exception("work after the response failed")


class _ThenRun:
    """The response's iterable, whose ``close()`` (called by the WSGI server after the body) closes the response
    (Django's ``request_finished``) and then runs the request's deferred work."""

    def __init__(self, response: Iterable[bytes], pending: list[Callable[[], None]]) -> None:
        self._response, self._pending = response, pending

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._response)

    def close(self) -> None:
        try:
            close = getattr(self._response, "close", None)
            if close is not None:
                close()
        finally:
            _run(self._pending)


def wsgi_after_response(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """Wrap a WSGI application so that :func:`after_response` work of a request runs after its response."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        pending: list[Callable[[], None]] = []
        token = _pending.set(pending)
        try:
            response = app(environ, start_response)
        except BaseException:
            _pending.reset(token)
            _run(pending)
            raise
        _pending.reset(token)
        if not pending:
            return response  # untouched: the server's file wrapper (sendfile) still sees a file response
        return _ThenRun(response, pending)

    return application
