"""Request bodies under ``/api/`` are capped at ``API_MAX_BODY_BYTES`` (64 KB by default) and refused with 413
``body_too_large`` *before* anything parses them: a 2.4 MB JSON list sent to ``/api/auth/token/`` used to cost
five seconds of CPU. Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only guards ``request.body``; DRF's parsers read
the stream themselves.

Three doors, each cheap:

* :class:`AsgiBodyLimit` (ASGI, daphne): a declared ``Content-Length`` over the cap is answered at once, before
  Django reads (and spools) the body.
* :class:`BodyLimitMiddleware` (every server): the same check on ``Content-Length``, first in the chain (before
  the CSRF check reads a form). A body that declares no length (chunked) is read here up to one byte past the
  cap and refused if it goes past it. Then the request's stream is wrapped so that whatever is actually read
  from it, a body longer than it said included, stops at the cap with the same 413 (:class:`BodyTooLarge`,
  which the API's exception handler turns into the error body).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from baccarat_site.errors import DomainError

API_PREFIX = "/api/"
CODE = "body_too_large"


def body_limit() -> int:
    return int(settings.API_MAX_BODY_BYTES)


def _detail(limit: int) -> str:
    return f"The request body is larger than {limit:,} bytes; nothing was read or changed."


class BodyTooLarge(DomainError):
    code = CODE
    status = 413


def _declared_length(value: str | bytes | None) -> int | None:
    """The ``Content-Length`` as a number (None: none declared, or not a number, left to the server)."""
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 19 else None


class _CappedStream:
    """A request stream that refuses to hand out more than ``limit`` bytes in all."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._stream, self._limit, self._read = stream, limit, 0

    def _count(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._limit:
            raise BodyTooLarge(_detail(self._limit))
        return data

    def read(self, size: int | None = -1, /) -> bytes:
        room = self._limit + 1 - self._read  # one byte past the cap is enough to know
        if size is None or size < 0 or size > room:
            size = room
        return self._count(self._stream.read(size))

    def readline(self, size: int | None = -1, /) -> bytes:
        room = self._limit + 1 - self._read
        if size is None or size < 0 or size > room:
            size = room
        return self._count(self._stream.readline(size))

    def __iter__(self) -> Any:
        return iter(self.readline, b"")

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


def too_large_response(limit: int) -> JsonResponse:
    return JsonResponse({"code": CODE, "detail": _detail(limit)}, status=413)


class BodyLimitMiddleware:
    """First in ``MIDDLEWARE``: under ``/api/``, a declared body over the cap is 413 at once; any other body is
    read through :class:`_CappedStream`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(API_PREFIX):
            limit = body_limit()
            declared = _declared_length(request.META.get("CONTENT_LENGTH"))
            if declared is not None and declared > limit:
                return too_large_response(limit)
            stream = getattr(request, "_stream", None)
            if stream is not None and declared is None:
                # No length said (a chunked body): read it here, up to one byte past the cap, and hand it on
                # with its length, so DRF (which skips a body of no declared length) parses what was sent.
                data = stream.read(limit + 1)
                if len(data) > limit:
                    return too_large_response(limit)
                stream = io.BytesIO(data)
                if data:
                    request.META["CONTENT_LENGTH"] = str(len(data))
            if stream is not None:  # under ASGI the body may run past its Content-Length: still never past the cap
                request._stream = _CappedStream(stream, limit)  # type: ignore[assignment]
        return self.get_response(request)


class AsgiBodyLimit:
    """ASGI middleware: an HTTP request under ``/api/`` whose ``Content-Length`` is over the cap gets the 413
    before its body is received (daphne would otherwise spool all of it for Django first)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "http" and scope.get("path", "").startswith(API_PREFIX):
            limit = body_limit()
            headers = dict(scope.get("headers", []))
            declared = _declared_length(headers.get(b"content-length"))
            if declared is not None and declared > limit:
                body = json.dumps({"code": CODE, "detail": _detail(limit)}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 413,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return None
        return await self.application(scope, receive, send)
