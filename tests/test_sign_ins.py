"""Sign-in records: every successful sign-in (page, admin, sign-up, API token) with its address, browser and
device; a browser is given its long-lived signed device cookie on its first page and keeps it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from baccarat_site import roles
from baccarat_site.accounts.models import SignIn
from baccarat_site.accounts.services import device_id_from_cookie
from tests.factories import make_user

pytestmark = pytest.mark.django_db
PASSWORD = "pass-word-123"


def device_of(browser: Client) -> str:
    """The device id the browser's signed device cookie carries ("" for none of ours)."""
    request = RequestFactory().get("/")
    request.COOKIES["casino_device"] = browser.cookies["casino_device"].value
    return device_id_from_cookie(request)


def test_a_sign_in_is_recorded_with_its_address_browser_and_a_new_device_cookie():
    alice = make_user("alice")
    browser = Client(REMOTE_ADDR="203.0.113.7", HTTP_USER_AGENT="TestBrowser/1.0")

    assert browser.post("/accounts/login/", {"username": "alice", "password": PASSWORD}).status_code == 302

    record = SignIn.objects.get()
    cookie = browser.cookies["casino_device"]
    assert (record.user, record.method, record.ip_address, record.user_agent) == (
        alice,
        SignIn.Method.PAGE,
        "203.0.113.7",
        "TestBrowser/1.0",
    )
    assert record.device_id == device_of(browser)
    assert len(record.device_id) >= 32
    assert cookie.value.startswith(record.device_id + ":")  # signed
    assert cookie["httponly"]
    assert int(cookie["max-age"]) > 365 * 24 * 3600


def test_the_same_browser_keeps_its_device_id_and_a_wrong_password_records_nothing():
    make_user("alice")
    make_user("bob")
    browser = Client(REMOTE_ADDR="203.0.113.7")
    browser.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert not SignIn.objects.exists()
    browser.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    browser.post("/accounts/logout/")
    response = browser.post("/accounts/login/", {"username": "bob", "password": PASSWORD})

    assert "casino_device" not in response.cookies  # not set again
    assert SignIn.objects.values("device_id").distinct().count() == 1
    assert SignIn.objects.count() == 2


def test_a_forged_device_cookie_is_not_trusted():
    make_user("alice")
    browser = Client(REMOTE_ADDR="203.0.113.7")
    browser.cookies["casino_device"] = "x' OR 1=1 --"

    browser.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    record = SignIn.objects.get()
    assert record.device_id == device_of(browser) != ""
    assert browser.cookies["casino_device"].value != "x' OR 1=1 --"


def test_sign_up_and_the_admin_login_are_recorded_too():
    make_user("boss", is_staff=True, is_superuser=True)
    Client(REMOTE_ADDR="198.51.100.2").post("/admin/login/", {"username": "boss", "password": PASSWORD})
    new = {"username": "newbie", "password1": "Str0ng-pass-phrase", "password2": "Str0ng-pass-phrase"}
    Client(REMOTE_ADDR="198.51.100.3").post("/accounts/signup/", new)

    assert set(SignIn.objects.values_list("user__username", "ip_address")) == {
        ("boss", "198.51.100.2"),
        ("newbie", "198.51.100.3"),
    }


def test_an_api_token_is_recorded_as_a_sign_in():
    make_user("alice")
    api = APIClient(REMOTE_ADDR="203.0.113.9")

    assert api.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}).status_code == 200

    record = SignIn.objects.get()
    assert (record.method, record.ip_address, record.device_id) == (SignIn.Method.API_TOKEN, "203.0.113.9", "")


def test_behind_a_trusted_proxy_a_sign_in_records_the_client_it_forwards_and_elsewhere_the_connection(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    make_user("alice")
    make_user("bob")
    Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.9, 203.0.113.44").post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD}
    )
    # Not from the proxy: what the client claims is not recorded.
    APIClient(REMOTE_ADDR="198.51.100.3", HTTP_X_FORWARDED_FOR="203.0.113.44").post(
        "/api/auth/token/", {"username": "bob", "password": PASSWORD}, format="json"
    )

    recorded = dict(SignIn.objects.values_list("user__username", "ip_address"))
    assert recorded == {"alice": "203.0.113.44", "bob": "198.51.100.3"}


def test_a_supervisor_finds_everyone_who_signed_in_from_an_address():
    make_user("alice")
    make_user("bob")
    for name in ("alice", "bob"):
        Client(REMOTE_ADDR="203.0.113.7").post("/accounts/login/", {"username": name, "password": PASSWORD})
    supervisor = make_user("sam", is_staff=True)
    supervisor.groups.add(Group.objects.get(name=roles.SUPERVISORS))
    staff = Client()
    staff.force_login(supervisor)

    page = staff.get("/admin/accounts/signin/", {"q": "203.0.113.7"})

    assert page.status_code == 200
    assert [s.user.username for s in page.context["cl"].result_list] == ["bob", "alice"]
