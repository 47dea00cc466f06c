"""Which pages may open a WebSocket here: only this site's own, by scheme, host *and* port.

A browser sends every socket the ``Origin`` of the page that opened it, with the site's cookies whatever that
page is; Channels' ``AllowedHostsOriginValidator`` compared the origin's host only, so a page served from
another port or over plain HTTP on an allowed name could open a signed-in socket and bet. Here the origin must
be exactly the address the socket itself was opened to (``Host`` header, which must be an allowed host, and
the connection's scheme), or one listed in ``CSRF_TRUSTED_ORIGINS``. Clients that send no ``Origin`` are
refused, as before. ``baccarat_site.ws_gate.SocketGate`` applies the rule to every socket.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": "80", "https": "443"}


def _normalise(scheme: str, netloc: str) -> str:
    host, port = split_domain_port(netloc)
    if not host:
        return ""
    port = port or DEFAULT_PORTS.get(scheme, "")
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def _origin_key(origin: str) -> str:
    scheme, sep, rest = origin.partition("://")
    if not sep or "/" in rest.rstrip("/"):
        return ""
    return _normalise(scheme.lower(), rest.rstrip("/").lower())


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    origin = headers.get(b"origin", b"").decode("latin-1").strip()
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    if not origin or not host:
        return False
    wanted = _origin_key(origin)
    if not wanted:
        return False
    if wanted in {_origin_key(trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    secure = scope.get("scheme") == "wss"
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not secure and proxy_header:
        name = proxy_header[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        secure = headers.get(name, b"").decode("latin-1").split(",")[0].strip() == proxy_header[1]
    return wanted == _normalise("https" if secure else "http", host)
