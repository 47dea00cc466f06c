"""API tokens end with the credentials that made them: a password change by any path, the site's sign-out and
``POST /api/auth/logout/`` revoke the player's token; the profile shows it (never the key) with a Revoke button."""

from __future__ import annotations

import html

import pytest
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from baccarat_site import settings as project_settings
from tests.factories import make_user
from wallets import services as wallet_services

pytestmark = pytest.mark.django_db
GOOD = "felt-and-chips-42"
NEW = "new-felt-and-chips-77"


@pytest.fixture
def nina():
    user = make_user("nina", GOOD)
    wallet_services.wallet_open_player(user=user)
    return user


def token_client(user) -> tuple[APIClient, str]:
    response = APIClient().post("/api/auth/token/", {"username": user.username, "password": GOOD}, format="json")
    assert response.status_code == 200, response.json()
    key = response.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/wallet/").status_code == 200
    return client, key


def refused(client: APIClient) -> bool:
    response = client.get("/api/wallet/")
    return response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_changing_the_password_on_the_password_page_revokes_the_api_token(nina):
    api, _key = token_client(nina)
    browser = Client()
    browser.force_login(nina)
    done = browser.post("/accounts/password/", {"old_password": GOOD, "new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302
    assert refused(api)
    assert not Token.objects.filter(user=nina).exists()


def test_a_password_change_in_the_admin_or_from_the_command_line_revokes_the_api_token(nina, monkeypatch):
    boss = make_user("boss", GOOD, is_staff=True, is_superuser=True)
    api, _key = token_client(nina)
    admin = Client()
    admin.force_login(boss)
    changed = admin.post(f"/admin/auth/user/{nina.pk}/password/", {"password1": NEW, "password2": NEW})
    assert changed.status_code == 302, html.unescape(changed.content.decode())[:2000]
    assert refused(api)

    api, _key = token_client_with(nina, NEW)
    answers = iter(["another-new-felt-88", "another-new-felt-88"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    call_command("changepassword", "nina", stdout=None)
    assert refused(api)


def test_turning_a_players_password_off_in_the_admin_revokes_the_api_token(nina):
    boss = make_user("boss", GOOD, is_staff=True, is_superuser=True)
    api, _key = token_client(nina)
    admin = Client()
    admin.force_login(boss)
    changed = admin.post(f"/admin/auth/user/{nina.pk}/password/", {"usable_password": "false", "unset-password": "1"})
    assert changed.status_code == 302, html.unescape(changed.content.decode())[:2000]
    assert changed["Location"] == f"/admin/auth/user/{nina.pk}/change/", changed["Location"]
    nina.refresh_from_db()
    assert not nina.has_usable_password()
    assert refused(api)


def token_client_with(user, password: str) -> tuple[APIClient, str]:
    response = APIClient().post("/api/auth/token/", {"username": user.username, "password": password}, format="json")
    assert response.status_code == 200, response.json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client, response.json()["token"]


def test_the_silent_rehash_of_an_old_password_at_sign_in_keeps_the_token(nina, settings):
    api, key = token_client(nina)
    settings.PASSWORD_HASHERS = project_settings.PASSWORD_HASHERS
    nina.password = make_password(GOOD, hasher="pbkdf2_sha256")
    nina.save(update_fields=["password"])
    assert Client().post("/accounts/login/", {"username": "nina", "password": GOOD}).status_code == 302
    nina.refresh_from_db()
    assert nina.password.startswith("argon2")  # upgraded, and the password is the same: the token stays
    assert Token.objects.get(user=nina).key == key
    assert not refused(api)


def test_signing_out_of_the_site_revokes_the_api_token(nina):
    api, _key = token_client(nina)
    browser = Client()
    browser.force_login(nina)
    assert browser.post("/accounts/logout/").status_code == 302
    assert refused(api)


def test_post_api_auth_logout_revokes_the_callers_token_with_204(nina):
    api, _key = token_client(nina)
    response = api.post("/api/auth/logout/")
    assert response.status_code == 204
    assert response.content == b""
    assert refused(api)
    again = api.post("/api/auth/logout/")
    assert (again.status_code, again.json()["code"]) == (401, "authentication_failed")
    anonymous = APIClient().post("/api/auth/logout/")
    assert (anonymous.status_code, anonymous.json()["code"]) == (401, "not_authenticated")
    fresh, _key = token_client(nina)  # a new token can be asked for at once
    assert not refused(fresh)


def test_api_logout_with_the_session_cookie_ends_the_session_and_revokes_the_token(nina):
    api, _key = token_client(nina)
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(nina)
    assert browser.post("/api/auth/logout/").status_code == 403  # a session POST needs its CSRF token
    browser.get("/accounts/profile/")
    csrf = browser.cookies["csrftoken"].value
    assert browser.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert refused(api)
    assert browser.get("/api/wallet/").status_code == 401


def test_the_schema_documents_api_auth_logout(nina):
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/auth/logout/"]["post"]
    assert set(operation["responses"]) >= {"204", "401"}


def test_the_profile_shows_the_token_by_its_last_four_characters_only_and_revokes_it(nina):
    browser = Client()
    browser.force_login(nina)
    page = html.unescape(browser.get("/accounts/profile/").content.decode())
    assert 'id="api-token-none"' in page
    api, key = token_client(nina)
    page = html.unescape(browser.get("/accounts/profile/").content.decode())
    assert 'id="api-token"' in page
    assert f"…{key[-4:]}" in page
    assert key not in page
    assert key[:8] not in page
    assert 'id="token-revoke"' in page
    assert browser.get("/accounts/token/revoke/").status_code == 405
    revoked = browser.post("/accounts/token/revoke/", follow=True)
    assert "Your API token is revoked" in html.unescape(revoked.content.decode())
    assert refused(api)
    assert browser.session.get("_auth_user_id") == str(nina.pk)  # the browser stays signed in
