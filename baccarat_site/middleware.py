"""Middleware of the project's own."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class SyncMiddlewareChain:
    """Last in ``MIDDLEWARE``: the chain around it runs synchronously, in one thread.

    Under ASGI, Django builds the chain from the view outwards and runs every
    async-capable ``MiddlewareMixin`` in async mode, each hook through its own
    ``sync_to_async`` hop (about 18 thread hand-offs per request here), although
    every view of this site is synchronous anyway. A sync-only middleware
    innermost makes Django adapt once there; everything outside it then runs in
    sync mode in a single worker thread (3 hops per request). WebSockets do not
    pass through this chain (Channels routes them separately).
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)
