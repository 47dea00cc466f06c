"""The door every WebSocket of ours comes through: the origin check, then the session and the user.

It does what ``SameOriginValidator(AuthMiddlewareStack(inner))`` did (``baccarat_site.ws_origin``, then Channels'
cookie, session and auth middlewares), with Channels' own ``get_user`` deciding who the socket belongs to (the
session's user, its backend and the password hash check), in one coroutine and one copy of the scope. The four
middlewares each kept a suspended coroutine, a copy of the scope, and (the session one) a wrapper around ``send``
for as long as the socket stayed open: 4.4 KiB of every idle socket's Python objects (tracemalloc), about an
eighth of what daphne holds per socket (bench/sockets_per_daphne.py).

What a consumer finds in its scope is what it found before: ``scope["session"]`` (the session store of the
socket's session cookie, never saved here) and ``scope["user"]`` (the user, or ``AnonymousUser``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from channels.auth import get_user
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.cookie import parse_cookie

from baccarat_site.ws_origin import origin_allowed


def _session_key(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"cookie":
            return parse_cookie(value.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
    return None


class SocketGate:
    """ASGI middleware for ``websocket`` scopes: sockets from another origin are denied at connect; the others get
    ``session`` and ``user`` in their scope."""

    def __init__(self, application: Any) -> None:
        self.application = application
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        session = self.session_store(_session_key(scope))
        # The frame stays suspended for the socket's life: it keeps the one scope it passes on, nothing else.
        scope = {**scope, "session": session, "user": await get_user({"session": session})}
        del session
        return await self.application(scope, receive, send)
