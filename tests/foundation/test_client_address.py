"""The client's address (baccarat_site.client_address): the forwarded header is believed only from a trusted
proxy, and then only its right end; anything it cannot read gives the connection's own address."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from baccarat_site.client_address import axes_client_address, client_address
from baccarat_site.env import env_networks

PROXY = "10.0.0.10"


@pytest.fixture(autouse=True)
def _behind_one_proxy(settings):
    settings.TRUSTED_PROXIES = [PROXY, "10.0.1.0/24", "2001:db8:ffff::/48"]
    settings.CLIENT_ADDRESS_HEADER = "X-Forwarded-For"


def request(peer: str, forwarded: str | None = None, **meta: str):
    extra = {"REMOTE_ADDR": peer, **meta}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


def scope(peer: str | None, *headers: tuple[bytes, bytes]) -> dict:
    return {"type": "websocket", "client": (peer, 50000) if peer else None, "headers": list(headers)}


def test_a_trusted_proxy_s_header_gives_the_client_it_forwards():
    assert client_address(request(PROXY, "203.0.113.7")) == "203.0.113.7"
    assert client_address(scope(PROXY, (b"x-forwarded-for", b"203.0.113.7"))) == "203.0.113.7"
    # a proxy in a trusted network, too
    assert client_address(request("10.0.1.99", "198.51.100.2")) == "198.51.100.2"


def test_an_untrusted_peer_s_spoofed_header_is_ignored():
    assert client_address(request("203.0.113.7", "198.51.100.2")) == "203.0.113.7"
    assert client_address(request("203.0.113.7", PROXY)) == "203.0.113.7"
    assert client_address(scope("203.0.113.7", (b"x-forwarded-for", b"198.51.100.2"))) == "203.0.113.7"


def test_nothing_is_trusted_by_default(settings):
    settings.TRUSTED_PROXIES = []
    assert client_address(request(PROXY, "203.0.113.7")) == PROXY
    assert client_address(scope(PROXY, (b"x-forwarded-for", b"203.0.113.7"))) == PROXY


def test_a_trusted_proxy_without_the_header_is_the_client_itself():
    assert client_address(request(PROXY)) == PROXY
    assert client_address(scope(PROXY)) == PROXY


def test_several_hops_give_the_right_most_address_that_is_not_a_trusted_proxy():
    # what the client wrote, the client as the first proxy saw it, then a second trusted proxy
    hops = "192.0.2.66, 203.0.113.7, 10.0.1.5"
    assert client_address(request(PROXY, hops)) == "203.0.113.7"
    # the left-most is whatever the client sent: a trusted proxy's address there is not believed either
    assert client_address(request(PROXY, "10.0.1.5, 203.0.113.7")) == "203.0.113.7"
    # several header lines are one list, in order
    lines = scope(PROXY, (b"x-forwarded-for", b"192.0.2.66"), (b"X-Forwarded-For", b"203.0.113.7, 10.0.1.5"))
    assert client_address(lines) == "203.0.113.7"
    # every hop a trusted proxy: the farthest of them
    assert client_address(request(PROXY, "10.0.1.7, 10.0.1.5")) == "10.0.1.7"


@pytest.mark.parametrize(
    "forwarded",
    [
        "",
        " ",
        "unknown",
        "not-an-address",
        "203.0.113.7, garbage",
        "203.0.113.7,,",
        "300.1.2.3",
        "203.0.113.7:x",
        "１.2.3.4",
        "[2001:db8::1",
        "[2001:db8::1]x",
        "203.0.113.7:443:1",
        "203.0.113.7, 10.0.1.5, ???",
    ],
)
def test_a_malformed_header_gives_the_connection_s_address(forwarded):
    assert client_address(request(PROXY, forwarded)) == PROXY


def test_garbage_the_client_wrote_left_of_what_the_proxy_appended_does_not_matter():
    assert client_address(request(PROXY, "garbage, 203.0.113.7")) == "203.0.113.7"


def test_ipv6_clients_proxies_and_ports():
    assert client_address(request(PROXY, "2001:DB8::7")) == "2001:db8::7"
    assert client_address(request(PROXY, "[2001:db8::7]:51000")) == "2001:db8::7"
    assert client_address(request(PROXY, "203.0.113.7:51000")) == "203.0.113.7"
    # an IPv6 proxy (in the trusted /48), and an IPv6 peer that is not trusted
    assert client_address(request("2001:db8:ffff::1", "2001:db8::7, 2001:db8:ffff::2")) == "2001:db8::7"
    assert client_address(request("2001:db8:1::1", "203.0.113.7")) == "2001:db8:1::1"
    # nginx on a dual-stack socket: the IPv4 proxy as an IPv4-mapped address is still the proxy
    assert client_address(request("::ffff:10.0.0.10", "203.0.113.7")) == "203.0.113.7"
    assert client_address(scope("::1")) == "::1"


def test_a_connection_without_an_address_has_none():
    assert client_address(scope(None, (b"x-forwarded-for", b"203.0.113.7"))) == ""
    assert client_address({"type": "websocket", "headers": []}) == ""
    assert client_address(request("")) == ""
    assert axes_client_address(request("")) is None
    assert axes_client_address(request(PROXY, "203.0.113.7")) == "203.0.113.7"


def test_another_header_can_be_named_and_none_turns_it_off(settings):
    settings.CLIENT_ADDRESS_HEADER = "X-Real-IP"
    assert client_address(request(PROXY, "198.51.100.2", HTTP_X_REAL_IP="203.0.113.7")) == "203.0.113.7"
    assert client_address(scope(PROXY, (b"x-real-ip", b"203.0.113.7"))) == "203.0.113.7"
    settings.CLIENT_ADDRESS_HEADER = "HTTP_X_REAL_IP"  # the WSGI spelling of the same header
    assert client_address(request(PROXY, HTTP_X_REAL_IP="203.0.113.7")) == "203.0.113.7"
    settings.CLIENT_ADDRESS_HEADER = ""
    assert client_address(request(PROXY, "203.0.113.7", HTTP_X_REAL_IP="203.0.113.7")) == PROXY


def test_trusted_proxies_from_the_environment_are_checked_at_start(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.10, 10.0.1.0/24 ,::1,10.0.2.7/24")
    assert env_networks("TRUSTED_PROXIES") == ["10.0.0.10/32", "10.0.1.0/24", "::1/128", "10.0.2.0/24"]
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.10,nginx.internal")
    with pytest.raises(ImproperlyConfigured, match=r"'nginx\.internal' is not an address or a network"):
        env_networks("TRUSTED_PROXIES")
    monkeypatch.delenv("TRUSTED_PROXIES")
    assert env_networks("TRUSTED_PROXIES") == []
