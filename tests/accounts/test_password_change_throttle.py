"""The password page's current password is guessed no more freely than the sign-in: django-axes counts each
wrong one for that username and address, and after AXES_FAILURE_LIMIT the page refuses for the cool-off."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.utils import translation

from tests.factories import make_user

pytestmark = pytest.mark.django_db
GOOD = "felt-and-chips-42"
NEW = "new-felt-and-chips-77"


@pytest.fixture(autouse=True)
def _five_tries(settings):
    settings.AXES_FAILURE_LIMIT = 5


def change(client: Client, old: str, **extra):
    return client.post(
        "/accounts/password/", {"old_password": old, "new_password1": NEW, "new_password2": NEW}, **extra
    )


def signed_in(user, address: str) -> Client:
    client = Client(REMOTE_ADDR=address)
    client.force_login(user)
    return client


def test_five_wrong_current_passwords_pause_the_password_page_even_for_the_right_one():
    nina = make_user("nina", GOOD)
    client = signed_in(nina, "203.0.113.7")
    for _ in range(4):
        wrong = change(client, "guess")
        assert wrong.status_code == 200
        assert "Your old password was entered incorrectly" in html.unescape(wrong.content.decode())
    locked = change(client, "guess")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == 15 * 60
    page = html.unescape(locked.content.decode())
    assert "Too many wrong current passwords. Try again in 15 minutes." in page
    assert "Changing the password is paused" in page

    right = change(client, GOOD)
    assert right.status_code == 429
    nina.refresh_from_db()
    assert nina.check_password(GOOD)  # nothing changed
    # The same pair is paused at the sign-in too: one counter for one secret.
    assert (
        Client(REMOTE_ADDR="203.0.113.7").post("/accounts/login/", {"username": "nina", "password": GOOD}).status_code
        == 429
    )


def test_the_pause_is_per_address_and_speaks_the_players_language():
    nina = make_user("nina", GOOD)
    client = signed_in(nina, "203.0.113.7")
    for _ in range(5):
        change(client, "guess")
    ru = change(client, "guess", HTTP_ACCEPT_LANGUAGE="ru")
    with translation.override("ru"):
        expected = translation.gettext("Changing the password is paused")
    assert expected != "Changing the password is paused"
    assert expected in html.unescape(ru.content.decode())

    elsewhere = signed_in(nina, "198.51.100.2")
    assert change(elsewhere, GOOD).status_code == 302
    nina.refresh_from_db()
    assert nina.check_password(NEW)


def test_fewer_wrong_guesses_than_the_limit_still_let_the_right_password_through():
    nina = make_user("nina", GOOD)
    client = signed_in(nina, "203.0.113.7")
    for _ in range(4):
        assert change(client, "guess").status_code == 200
    assert change(client, GOOD).status_code == 302
