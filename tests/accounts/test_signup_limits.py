"""Accounts cannot be farmed from one address: at most SIGNUP_LIMIT_PER_ADDRESS sign-ups an hour (then 429
with the form's message), and only the first SIGNUP_CREDITED_PER_ADDRESS_PER_DAY of a day get the starting
play money; the others open at 0.00 and may first refill an hour later."""

from __future__ import annotations

import html
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from baccarat_site.accounts import services
from baccarat_site.redis_client import redis_client
from tests.factories import make_table, make_variant
from wallets import selectors as wallet_selectors
from wallets.models import Wallet

pytestmark = pytest.mark.django_db
User = get_user_model()
GOOD = "felt-and-chips-42"


@pytest.fixture(autouse=True)
def table(db):
    limits = {bet: {"min": "5.00", "max": "5000.00"} for bet in ("player", "banker", "tie")}
    return make_table("Baccarat 1", make_variant("Five minimum", limits=limits))


def sign_up(name: str, address: str = "203.0.113.9", **extra: str):
    client = Client(REMOTE_ADDR=address, **extra)
    return client, client.post("/accounts/signup/", {"username": name, "password1": GOOD, "password2": GOOD})


def balance_of(name: str) -> Decimal:
    return Wallet.objects.get(user__username=name).balance


def test_the_sixth_sign_up_from_one_address_in_an_hour_is_refused_and_makes_nothing(settings):
    settings.SIGNUP_LIMIT_PER_ADDRESS = 5
    settings.SIGNUP_CREDITED_PER_ADDRESS_PER_DAY = 5
    for n in range(5):
        assert sign_up(f"player{n}")[1].status_code == 302
    _client, refused = sign_up("player5")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    page = html.unescape(refused.content.decode())
    assert "Too many new accounts from your address. Try again in" in page
    assert not User.objects.filter(username="player5").exists()
    assert Wallet.objects.filter(user__username="player5").count() == 0
    # Another address is not held back by this one.
    assert sign_up("player5", address="198.51.100.20")[1].status_code == 302


def test_sign_ups_behind_a_trusted_proxy_are_counted_per_client_and_a_spoofed_header_is_not(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    settings.SIGNUP_LIMIT_PER_ADDRESS = 2
    settings.SIGNUP_CREDITED_PER_ADDRESS_PER_DAY = 5
    for n in range(2):
        assert sign_up(f"near{n}", "10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.7")[1].status_code == 302
    assert sign_up("near2", "10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.7")[1].status_code == 429
    # another client behind the same proxy is not held back by the first
    assert sign_up("far0", "10.0.0.10", HTTP_X_FORWARDED_FOR="198.51.100.20")[1].status_code == 302
    # straight to the server, a claimed address counts as the connection's own
    for n in range(2):
        assert sign_up(f"direct{n}", "192.0.2.5", HTTP_X_FORWARDED_FOR=f"198.51.100.{30 + n}")[1].status_code == 302
    assert sign_up("direct2", "192.0.2.5", HTTP_X_FORWARDED_FOR="198.51.100.32")[1].status_code == 429


def test_a_refused_or_failed_sign_up_does_not_use_up_a_place(settings):
    settings.SIGNUP_LIMIT_PER_ADDRESS = 2
    assert sign_up("first")[1].status_code == 302
    assert sign_up("FIRST")[1].status_code == 200  # the name is taken: a form error, no account, no place used
    assert sign_up("second")[1].status_code == 302
    assert sign_up("third")[1].status_code == 429


def test_only_the_first_sign_ups_of_a_day_from_an_address_get_the_starting_money(settings):
    settings.SIGNUP_LIMIT_PER_ADDRESS = 10
    settings.SIGNUP_CREDITED_PER_ADDRESS_PER_DAY = 2
    for name in ("ana", "ben"):
        assert sign_up(name)[1]["Location"] == "/"
        assert balance_of(name) == Decimal("1000.00")

    client, third = sign_up("cleo")
    assert third.status_code == 302
    assert third["Location"] == "/accounts/profile/"
    assert balance_of("cleo") == Decimal("0.00")
    profile = html.unescape(client.get("/accounts/profile/").content.decode())
    assert "this account starts at 0.00" in profile
    assert "you can refill again in 60 minutes" in profile

    cleo = User.objects.get(username="cleo")
    refill = client.post("/api/wallet/refill/")  # not at once: a new account is no refill machine
    assert (refill.status_code, refill.json()["code"]) == (409, "refill_too_soon")
    assert Wallet.objects.get(user__username="cleo").balance == Decimal("0.00")
    now = timezone.now()
    status = wallet_selectors.wallet_refill_status(user=cleo, minimum_stake=Decimal("5.00"), now=now)
    assert status.refusal == "refill_too_soon"
    later = wallet_selectors.wallet_refill_status(
        user=cleo, minimum_stake=Decimal("5.00"), now=now + timedelta(hours=1, seconds=1)
    )
    assert later.refusal is None
    # Another address still gets the money.
    assert sign_up("dan", address="198.51.100.21")[1]["Location"] == "/"
    assert balance_of("dan") == Decimal("1000.00")


def test_the_counts_live_in_redis_with_keys_that_expire():
    services.sign_up_place_take(address="192.0.2.1")
    keys = redis_client().keys(cache.make_key("signup:*:192.0.2.1:*"))
    assert len(keys) == 2
    for key in keys:
        assert 0 < redis_client().ttl(key) <= 86400 + 60
