"""Brute force: repeated wrong passwords lock out that username from that address, on every way in (the login
page, the admin's login, the API token), with a clear message in the player's language; Argon2 hashes."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import identify_hasher, make_password
from django.test import Client
from rest_framework.test import APIClient

from baccarat_site import settings as project_settings
from tests.factories import make_user

pytestmark = pytest.mark.django_db
PASSWORD = "right-password-42"


@pytest.fixture(autouse=True)
def _five_tries(settings):
    settings.AXES_FAILURE_LIMIT = 5


def test_the_login_page_locks_out_after_five_wrong_passwords_even_for_the_right_one_in_every_language():
    make_user("vera", PASSWORD)
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(4):
        assert client.post("/accounts/login/", {"username": "vera", "password": "guess"}).status_code == 200
    locked = client.post("/accounts/login/", {"username": "vera", "password": "guess"})
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == 15 * 60
    assert "Too many failed sign-ins. Try again in 15 minutes." in locked.content.decode()
    # Now even the right password is refused, and nobody is signed in.
    right = client.post("/accounts/login/", {"username": "vera", "password": PASSWORD})
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session
    ru = client.post("/accounts/login/", {"username": "vera", "password": PASSWORD}, HTTP_ACCEPT_LANGUAGE="ru")
    assert "Слишком много неудачных попыток входа" in ru.content.decode()


def test_another_address_or_another_username_is_not_locked_out_by_someone_elses_failures():
    make_user("vera", PASSWORD)
    make_user("oleg", PASSWORD)
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        attacker.post("/accounts/login/", {"username": "vera", "password": "guess"})
    assert (
        Client(REMOTE_ADDR="198.51.100.2")
        .post("/accounts/login/", {"username": "vera", "password": PASSWORD})
        .status_code
        == 302
    )
    assert attacker.post("/accounts/login/", {"username": "oleg", "password": PASSWORD}).status_code == 302


def test_two_clients_behind_a_trusted_proxy_are_locked_out_apart(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    make_user("vera", PASSWORD)
    attacker = APIClient(REMOTE_ADDR="10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.7")
    for _ in range(5):
        attacker.post("/api/auth/token/", {"username": "vera", "password": "guess"}, format="json")
    assert (
        attacker.post("/api/auth/token/", {"username": "vera", "password": PASSWORD}, format="json").status_code == 429
    )
    # vera herself, through the same proxy from her own address, still signs in on every way in
    vera = {"REMOTE_ADDR": "10.0.0.10", "HTTP_X_FORWARDED_FOR": "198.51.100.2"}
    assert APIClient(**vera).post("/api/auth/token/", {"username": "vera", "password": PASSWORD}).status_code == 200
    assert Client(**vera).post("/accounts/login/", {"username": "vera", "password": PASSWORD}).status_code == 302


def test_a_client_that_is_not_the_proxy_cannot_escape_its_lockout_with_a_forwarded_header(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    make_user("vera", PASSWORD)
    for n in range(5):  # a new claimed address every try
        Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").post(
            "/accounts/login/", {"username": "vera", "password": "guess"}
        )
    claimed = Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.99, 10.0.0.10")
    assert claimed.post("/accounts/login/", {"username": "vera", "password": PASSWORD}).status_code == 429


def test_a_success_before_the_limit_clears_the_count():
    make_user("vera", PASSWORD)
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(4):
        client.post("/accounts/login/", {"username": "vera", "password": "guess"})
    assert client.post("/accounts/login/", {"username": "vera", "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(4):
        assert client.post("/accounts/login/", {"username": "vera", "password": "guess"}).status_code == 200


def test_the_admin_login_is_throttled_too():
    make_user("boss", PASSWORD, is_staff=True, is_superuser=True)
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "boss", "password": "guess", "next": "/admin/"})
    assert response.status_code == 429
    assert client.post("/admin/login/", {"username": "boss", "password": PASSWORD}).status_code == 429


def test_the_api_token_endpoint_answers_json_and_locks_out_with_429():
    make_user("vera", PASSWORD)
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    for _ in range(4):
        wrong = client.post("/api/auth/token/", {"username": "vera", "password": "guess"}, format="json")
        assert (wrong.status_code, wrong.json()["code"]) == (400, "invalid_credentials")
    locked = client.post("/api/auth/token/", {"username": "vera", "password": "guess"}, format="json")
    assert locked.status_code == 429
    body = locked.json()
    assert body["code"] == "too_many_attempts"
    assert body["detail"]
    right = client.post("/api/auth/token/", {"username": "vera", "password": PASSWORD}, format="json")
    assert (right.status_code, right.json()["code"]) == (429, "too_many_attempts")


def test_new_passwords_are_hashed_with_argon2_and_old_pbkdf2_hashes_still_verify_and_are_upgraded(settings):
    settings.PASSWORD_HASHERS = project_settings.PASSWORD_HASHERS  # the suite hashes with MD5 (conftest)
    user = make_user("vera", PASSWORD)
    assert identify_hasher(user.password).algorithm == "argon2"
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save(update_fields=["password"])
    assert Client().post("/accounts/login/", {"username": "vera", "password": PASSWORD}).status_code == 302
    user.refresh_from_db()
    assert identify_hasher(user.password).algorithm == "argon2"
