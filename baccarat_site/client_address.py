"""The client's address, for everything that counts or records clients: the sign-in lockout (django-axes, through
:func:`axes_client_address`), the sign-up limits, the per-address socket caps and the sign-in records that the
linked-account alerts read.

Behind the documented nginx every connection comes from nginx, so the connection's own address (``REMOTE_ADDR``
under WSGI, ``scope["client"]`` under ASGI) would be one address for the whole casino: five wrong passwords from
anyone would lock a username out for everyone, five sign-ups an hour would be the casino's. nginx puts the
client's address in ``X-Forwarded-For`` (deploy/nginx/baccarat.conf). That header is read only when the
connection itself comes from one of ``TRUSTED_PROXIES`` (addresses or networks); from anywhere else it is
whatever the client chose to send, and is ignored: the connection's address is the client's.

A trusted header (``CLIENT_ADDRESS_HEADER``, default ``X-Forwarded-For``) is a comma-separated list of hops, each
proxy appending the address it was reached from, so only its right end is known to be true: the client's address
is the right-most entry that is not itself a trusted proxy (never the left-most, which the client writes). Every
entry being a trusted proxy gives the left-most of them; an entry that is not an address, met before an untrusted
one, gives the connection's address (the header cannot be read, so it is not believed). ``X-Real-IP`` (one
address) works the same way.

Nothing is trusted by default (``TRUSTED_PROXIES`` empty): the header is then never read. Addresses come back in
their normal form (``2001:db8::1``, an IPv4-mapped IPv6 address as its IPv4 one, any port dropped); ``""`` when
the connection has no address to give (a test client's scope, a Unix socket).
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def client_address(source: HttpRequest | Mapping[str, Any]) -> str:
    """The client's address for a request (Django's or DRF's) or an ASGI scope; ``""`` if it has none."""
    header = header_name(str(getattr(settings, "CLIENT_ADDRESS_HEADER", "") or ""))
    if isinstance(source, Mapping):
        client = source.get("client")
        peer = str(client[0]) if client else ""
        wanted = header.lower().encode("latin-1")
        values: list[str] = [
            bytes(value).decode("latin-1") for name, value in source.get("headers", ()) if bytes(name).lower() == wanted
        ]
    else:
        meta = source.META
        peer = str(meta.get("REMOTE_ADDR") or "")
        value = meta.get("HTTP_" + header.upper().replace("-", "_")) if header else None
        values = [str(value)] if value is not None else []
    return resolve(peer, values if header else [], trusted_proxies(tuple(getattr(settings, "TRUSTED_PROXIES", ()))))


def axes_client_address(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the lockout counts per username and this address (None when unknown)."""
    return client_address(request) or None


def resolve(peer: str, values: Iterable[str], proxies: tuple[Network, ...]) -> str:
    """The client's address, given the connection's (``peer``), the trusted header's values in the order they
    came (several lines of one header are one list, in order) and the trusted proxies."""
    peer_address = parse_address(peer)
    if peer_address is None:
        return ""
    if not proxies or not _is_proxy(peer_address, proxies):
        return str(peer_address)
    hops = ",".join(values).split(",") if values else []
    farthest: Address | None = None
    for entry in reversed(hops):
        hop = parse_address(entry)
        if hop is None:
            return str(peer_address)
        if not _is_proxy(hop, proxies):
            return str(hop)
        farthest = hop
    return str(farthest or peer_address)


def parse_address(text: str) -> Address | None:
    """One address as a header or a server gives it: ``192.0.2.1``, ``192.0.2.1:443``, ``2001:db8::1``,
    ``[2001:db8::1]:443``; None for anything else (``unknown``, a name, an empty string)."""
    text = text.strip()
    if text.startswith("["):
        inner, closed, rest = text[1:].partition("]")
        if not closed or (rest and not (rest.startswith(":") and _is_port(rest[1:]))):
            return None
        text = inner
    elif text.count(":") == 1:
        text, _colon, port = text.partition(":")
        if not _is_port(port):
            return None
    text = text.partition("%")[0]  # an IPv6 zone (fe80::1%eth0) names an interface, not a client
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def header_name(name: str) -> str:
    """``X-Forwarded-For`` from that or from its WSGI form ``HTTP_X_FORWARDED_FOR``; ``""`` for none."""
    name = name.strip()
    if name.upper().startswith("HTTP_"):
        name = name[5:].replace("_", "-")
    return name


@functools.lru_cache(maxsize=8)
def trusted_proxies(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES`` as networks (an address is a network of one). A bad entry raises ValueError (the
    settings refuse one at start, ``baccarat_site.env.env_networks``)."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def _is_proxy(address: Address, proxies: tuple[Network, ...]) -> bool:
    return any(address.version == network.version and address in network for network in proxies)


def _is_port(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5
