"""WebSocket origins: only this site's own page, by scheme, host and port, may open a socket."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from baccarat_site.asgi import application
from baccarat_site.ws_origin import origin_allowed


def scope(origin: str | None, host: str | None, scheme: str = "ws", **extra: str) -> dict:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    headers += [(name.encode(), value.encode()) for name, value in extra.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://localhost:8000", "localhost:8000", "ws", True),
        ("HTTP://LOCALHOST:8000/", "localhost:8000", "ws", True),
        ("http://127.0.0.1", "127.0.0.1:80", "ws", True),  # default port written or not
        ("https://localhost", "localhost", "wss", True),
        # The findings: the same allowed name on another port or another scheme is another site.
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1", "127.0.0.1:8000", "ws", False),
        ("https://localhost:8000", "localhost:8000", "ws", False),
        ("http://localhost", "localhost", "wss", False),
        ("http://evil.example:8000", "127.0.0.1:8000", "ws", False),
        # A Host that is not an allowed host (DNS rebinding), even if the origin matches it.
        ("http://evil.example:8000", "evil.example:8000", "ws", False),
        # No origin or no host: not a browser on this site.
        (None, "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:8000", None, "ws", False),
        ("null", "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:8000/page", "127.0.0.1:8000", "ws", False),
    ],
)
def test_only_the_sites_own_origin_opens_a_socket(settings, origin, host, scheme, allowed):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.CSRF_TRUSTED_ORIGINS = []
    assert origin_allowed(scope(origin, host, scheme)) is allowed


def test_a_trusted_origin_and_a_tls_proxy_are_honoured(settings):
    settings.ALLOWED_HOSTS = ["casino.example"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.casino.example"]
    assert origin_allowed(scope("https://play.casino.example", "casino.example"))
    # Behind a TLS proxy daphne sees ws://; the proxy's header says the page was https.
    behind = scope("https://casino.example", "casino.example", **{"x-forwarded-proto": "https"})
    assert not origin_allowed(behind)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert origin_allowed(behind)
    assert not origin_allowed(scope("http://casino.example", "casino.example", **{"x-forwarded-proto": "https"}))


@pytest.mark.django_db(transaction=True)
async def test_the_real_application_refuses_a_page_on_another_port():
    other_port = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://testserver:8081"), (b"host", b"testserver:8000")]
    )
    connected, _ = await other_port.connect(timeout=5)
    assert not connected
    same = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://testserver:8000"), (b"host", b"testserver:8000")]
    )
    connected, _ = await same.connect(timeout=5)
    assert connected
    await same.disconnect()
