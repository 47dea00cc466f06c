"""Exclusion follows the person (accounts.services.person_stop_check): a sign-up or sign-in that looks like the
person of an account a restriction stops now (the same device cookie, the same address within
LINKED_ADDRESS_DAYS, a name or e-mail with the same key) is refused, and no account, wallet or money is made; the
admin's player page lists the linked accounts."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client, RequestFactory
from django.utils import timezone
from rest_framework.test import APIClient

from baccarat_site import roles
from baccarat_site.accounts import services
from baccarat_site.accounts.models import Restriction, SignIn
from baccarat_site.accounts.selectors import linked_accounts_of
from tests.factories import make_staff, make_table, make_user
from wallets.models import LedgerEntry, Wallet

pytestmark = pytest.mark.django_db
User = get_user_model()
PASSWORD = "pass-word-123"
GOOD = "felt-and-chips-42"


@pytest.fixture(autouse=True)
def table(db):
    return make_table("Baccarat 1")


def device_of(browser: Client) -> str:
    """The device id in the browser's signed device cookie."""
    request = RequestFactory().get("/")
    request.COOKIES["casino_device"] = browser.cookies["casino_device"].value
    return services.device_id_from_cookie(request)


def signed_in(name: str, address: str) -> Client:
    browser = Client(REMOTE_ADDR=address)
    assert browser.post("/accounts/login/", {"username": name, "password": PASSWORD}).status_code == 302
    return browser


def sign_up(browser: Client, name: str):
    return browser.post("/accounts/signup/", {"username": name, "password1": GOOD, "password2": GOOD})


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def excluded_alice(kind: str = "self_exclusion", period: str = "6m") -> tuple[Client, Restriction]:
    """Alice signed in from her browser at 203.0.113.7, then stopped her own play and was signed out."""
    alice = make_user("alice")
    browser = signed_in("alice", "203.0.113.7")
    stop = services.player_self_restrict(user=alice, kind=kind, period=period)
    browser.post("/accounts/logout/")  # as the stop does at her next request (after commit, which tests skip)
    return browser, stop


def assert_nothing_made(name: str) -> None:
    assert not User.objects.filter(username=name).exists()
    assert not Wallet.objects.filter(user__username=name).exists()


def test_a_self_excluded_players_browser_cannot_sign_up_again_from_another_address(settings):
    settings.LINKED_ADDRESS_DAYS = 0  # the device alone
    browser, stop = excluded_alice()
    entries = LedgerEntry.objects.count()
    browser.defaults["REMOTE_ADDR"] = "198.51.100.40"

    refused = sign_up(browser, "bob")

    assert refused.status_code == 403
    assert "You have excluded yourself from play until" in page_text(refused)
    assert f"{stop.ends_at:%Y-%m-%d}" in page_text(refused)
    assert_nothing_made("bob")
    assert LedgerEntry.objects.count() == entries  # no starting money


def test_a_sign_up_from_the_address_a_timed_out_player_used_recently_is_refused(settings):
    settings.LINKED_ADDRESS_DAYS = 7
    excluded_alice(kind="time_out", period="24h")

    refused = sign_up(Client(REMOTE_ADDR="203.0.113.7"), "bob")  # another browser, the same address

    assert refused.status_code == 403
    assert "You are taking a time-out until" in page_text(refused)
    assert_nothing_made("bob")
    # The address links only within the period; another address is not held back.
    SignIn.objects.update(at=timezone.now() - timedelta(days=8))
    assert sign_up(Client(REMOTE_ADDR="203.0.113.7"), "bob").status_code == 302
    assert sign_up(Client(REMOTE_ADDR="198.51.100.41"), "carol").status_code == 302
    assert Wallet.objects.get(user__username="carol").balance > 0


@pytest.mark.parametrize("name", ["Alice.", "a.lice", "alice+again", "al1ce", "a_l-i.c3"])
def test_a_name_that_normalises_to_the_stopped_players_is_refused_from_anywhere(name):
    excluded_alice()
    refused = sign_up(Client(REMOTE_ADDR="198.51.100.42"), name)
    assert refused.status_code == 403
    assert "excluded yourself" in page_text(refused)
    assert_nothing_made(name)


def test_a_name_that_matches_the_local_part_of_a_stopped_players_email_is_refused():
    alice = make_user("alice", email="Ali.Baba+casino@example.com")
    services.player_self_restrict(user=alice, kind="time_out", period="7d")
    assert sign_up(Client(REMOTE_ADDR="198.51.100.43"), "alibaba").status_code == 403
    assert_nothing_made("alibaba")


def test_a_sign_up_unlike_any_stopped_player_goes_ahead(settings):
    excluded_alice()
    created = sign_up(Client(REMOTE_ADDR="198.51.100.44"), "bob")
    assert created.status_code == 302
    assert Wallet.objects.get(user__username="bob").balance > 0


def test_another_account_of_the_person_cannot_sign_in_from_their_browser_or_get_a_token(clock):
    make_user("bob")
    browser, _stop = excluded_alice()
    browser.defaults["REMOTE_ADDR"] = "198.51.100.45"

    refused = browser.post("/accounts/login/", {"username": "bob", "password": PASSWORD})

    assert refused.status_code == 200  # the sign-in page again, saying why
    assert "It covers you, not one account" in page_text(refused)
    assert not SignIn.objects.filter(user__username="bob").exists()
    token = APIClient(REMOTE_ADDR="203.0.113.7").post("/api/auth/token/", {"username": "bob", "password": PASSWORD})
    assert (token.status_code, token.json()["code"]) == (403, "self_excluded")
    clock.move(days=200)  # once the self-exclusion has run its course, bob signs in again from that browser
    assert browser.post("/accounts/login/", {"username": "bob", "password": PASSWORD}).status_code == 302


def test_a_staff_suspension_links_too_with_its_own_code(settings):
    alice = make_user("alice")
    signed_in("alice", "203.0.113.7")
    supervisor = make_staff("sam", is_superuser=True)
    services.player_suspend(user=alice, reason="Chargebacks", actor=supervisor)
    make_user("bob")
    token = APIClient(REMOTE_ADDR="203.0.113.7").post("/api/auth/token/", {"username": "bob", "password": PASSWORD})
    assert (token.status_code, token.json()["code"]) == (403, "linked_account_stopped")
    refused = sign_up(Client(REMOTE_ADDR="203.0.113.7"), "carol")
    assert refused.status_code == 403
    assert "An account of yours is suspended or closed" in page_text(refused)


def test_staff_sign_in_from_a_stopped_players_address(settings):
    excluded_alice()
    make_staff("dan", roles.DEALERS)
    assert signed_in("dan", "203.0.113.7")  # staff do not play: the person check is for players


def test_every_visitor_gets_a_signed_device_cookie_and_a_forged_one_is_replaced():
    browser = Client(REMOTE_ADDR="203.0.113.7")
    browser.get("/accounts/signup/")
    first = device_of(browser)
    browser.get("/accounts/login/")
    assert device_of(browser) == first  # kept
    browser.cookies["casino_device"] = first  # the id without its signature: not ours
    browser.get("/accounts/login/")
    assert device_of(browser) != first


def test_the_admin_player_page_lists_the_linked_accounts(settings):
    settings.LINKED_ADDRESS_DAYS = 7
    browser, _stop = excluded_alice()
    for name in ("bob", "carol", "al1ce"):
        make_user(name)
    SignIn.objects.create(user=User.objects.get(username="bob"), device_id=device_of(browser))
    SignIn.objects.create(user=User.objects.get(username="carol"), ip_address="203.0.113.7")
    SignIn.objects.create(user=make_user("dave"), ip_address="192.0.2.99", device_id="z" * 32)
    alice = User.objects.get(username="alice")

    links = {link.username: link.via for link in linked_accounts_of(user=alice)}
    assert links == {"bob": ("device",), "carol": ("address",), "al1ce": ("name",)}

    supervisor = make_user("sam", is_staff=True)
    supervisor.groups.add(Group.objects.get(name=roles.SUPERVISORS))
    staff = Client()
    staff.force_login(supervisor)
    page = page_text(staff.get(f"/admin/accounts/player/{alice.pk}/change/"))
    assert "Linked accounts" in page
    for name in ("bob", "carol", "al1ce"):
        assert f">{name}</a>" in page
    assert ">dave</a>" not in page
    bob_page = page_text(staff.get(f"/admin/accounts/player/{User.objects.get(username='bob').pk}/change/"))
    assert "stopped: self-exclusion until" in bob_page
