"""baccarat_site.after_response: a WSGI request's deferred work runs after its response was sent, and at once
anywhere else."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from baccarat_site.after_response import after_response, wsgi_after_response


class Body:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def __iter__(self):
        self.log.append("body sent")
        return iter([b"ok"])

    def close(self) -> None:
        self.log.append("response closed")


def serve(app: Callable[..., Iterable[bytes]]) -> Any:
    """As a WSGI server does: call, send every chunk, then close."""
    response = app({}, lambda status, headers, exc_info=None: None)
    body = b"".join(response)
    getattr(response, "close", lambda: None)()
    return response, body


def test_work_of_a_wsgi_request_runs_after_its_response_is_sent_and_closed():
    log: list[str] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        after_response(lambda: log.append("deferred work"))
        log.append("view returned")
        return Body(log)

    _, body = serve(wsgi_after_response(app))
    assert body == b"ok"
    assert log == ["view returned", "body sent", "response closed", "deferred work"]


def test_a_response_without_deferred_work_is_handed_back_untouched():
    body = Body([])
    response, _ = serve(wsgi_after_response(lambda environ, start_response: body))
    assert response is body  # a file response keeps the server's sendfile


def test_failing_work_is_logged_and_the_rest_still_runs(caplog):
    log: list[str] = []

    def fail() -> None:
        raise RuntimeError("boom")

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        after_response(fail)
        after_response(lambda: log.append("second"))
        return Body(log)

    serve(wsgi_after_response(app))
    assert log[-1] == "second"
    assert "work after the response failed" in caplog.text


def test_outside_a_wsgi_request_the_work_runs_at_once():
    log: list[str] = []
    after_response(lambda: log.append("now"))
    assert log == ["now"]
