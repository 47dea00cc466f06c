"""The account pages: sign up (with its starting money), sign in with the saved language, password change, the
profile's preferences, the header's balance and language switcher, and the refill (page and REST)."""

from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import translation

from baccarat_site.accounts.models import Profile
from tests.factories import make_staff, make_table, make_user, make_variant
from wallets import services as wallet_services
from wallets.models import LedgerTransaction, Wallet

User = get_user_model()
GOOD = "felt-and-chips-42"


@pytest.fixture
def table(db):
    """An open table whose smallest minimum stake is 5.00."""
    limits = {bet: {"min": "5.00", "max": "5000.00"} for bet in ("player", "banker", "tie")}
    return make_table("Baccarat 1", make_variant("Five minimum", limits=limits))


@pytest.fixture
def player(db):
    user = make_user("nina", GOOD)
    wallet_services.wallet_open_player(user=user)
    return user


def text(response) -> str:
    return html.unescape(response.content.decode())


def translated(message: str, lang: str) -> str:
    with translation.override(lang):
        return translation.gettext(message)


def header_balance(page: str) -> str:
    match = re.search(r'data-header-balance[^>]*>.*?<bdi dir="ltr">([^<]*)</bdi>', page, re.S)
    assert match, "no balance in the header"
    return match.group(1)


def balance_of(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


# ── sign up ─────────────────────────────────────────────────────────────────


def test_signing_up_creates_the_player_signs_them_in_and_gives_the_starting_money(client, table):
    page = text(client.get("/accounts/signup/"))
    assert 'name="username"' in page
    assert 'name="password1"' in page
    assert 'name="password2"' in page
    assert "1,000.00" in page  # what a new player starts with

    response = client.post("/accounts/signup/", {"username": "Nina", "password1": GOOD, "password2": GOOD})

    assert response.status_code == 302
    assert response["Location"] == "/"
    user = User.objects.get(username="Nina")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert balance_of(user) == Decimal("1000.00")
    assert LedgerTransaction.objects.get().reference == f"signup:{user.pk}"
    assert Profile.objects.get(user=user).language == "en"
    lobby = text(client.get("/"))
    assert header_balance(lobby) == "1,000.00"
    assert ">Nina<" in lobby
    assert client.get("/accounts/signup/")["Location"] == "/"  # signed in: nothing to sign up for


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"username": "", "password1": GOOD, "password2": GOOD}, "username", "This field is required."),
        (
            {"username": "nina jones", "password1": GOOD, "password2": GOOD},
            "username",
            "Enter a valid username: letters, digits and @/./+/-/_ only, no spaces.",
        ),
        ({"username": "NINA", "password1": GOOD, "password2": GOOD}, "username", "That username is taken"),
        (
            {"username": "bob", "password1": GOOD, "password2": GOOD + "x"},
            "password2",
            "The two password fields didn’t match.",
        ),
        (
            {"username": "bob", "password1": "fe1t", "password2": "fe1t"},
            "password2",
            "This password is too short. It must contain at least 8 characters.",
        ),
        ({"username": "bob", "password1": "password1", "password2": "password1"}, "password2", "too common"),
        ({"username": "bob", "password1": "8402957163", "password2": "8402957163"}, "password2", "entirely numeric"),
        (
            {"username": "bobbybaccarat", "password1": "bobbybaccarat1", "password2": "bobbybaccarat1"},
            "password2",
            "too similar to the username",
        ),
    ],
)
def test_a_refused_sign_up_shows_the_error_at_its_field_and_creates_nothing(
    client, table, player, data, field, message
):
    users, transactions = User.objects.count(), LedgerTransaction.objects.count()

    response = client.post("/accounts/signup/", data)

    assert response.status_code == 200
    page = text(response)
    errors = re.search(rf'<ul class="errors" id="id_{field}_errors">(.*?)</ul>', page, re.S)
    assert errors, f"no error list at {field}"
    assert message in errors.group(1)
    assert User.objects.count() == users
    assert LedgerTransaction.objects.count() == transactions
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("lang", ["fa", "hi", "vi", "ru", "pt"])
def test_the_sign_up_form_and_its_errors_speak_the_players_language(client, table, lang):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    page = text(client.post("/accounts/signup/", {"username": "bob", "password1": "12345678", "password2": "123"}))
    for english in ("Username", "Password confirmation", "The two password fields didn’t match."):
        assert translated(english, lang) != english
        assert translated(english, lang) in page
    for english in ("Username", "Password", "Password confirmation", "This password is entirely numeric.", "Sign up"):
        assert f">{english}<" not in page
        assert f"{english}</" not in page
    assert not User.objects.filter(username="bob").exists()


def test_a_player_signing_up_in_persian_keeps_persian(client, table):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    client.post("/accounts/signup/", {"username": "dariush", "password1": GOOD, "password2": GOOD})
    assert Profile.objects.get(user__username="dariush").language == "fa"


# ── sign in, sign out, password ─────────────────────────────────────────────


def test_signing_in_applies_the_language_saved_on_the_profile(client, table, player):
    Profile.objects.create(user=player, language="ru")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"

    response = client.post("/accounts/login/", {"username": "nina", "password": GOOD})

    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ru"
    assert '<html lang="ru"' in text(client.get("/"))


def test_signing_in_without_a_saved_language_leaves_the_pages_one(client, table, player):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "vi"
    response = client.post("/accounts/login/", {"username": "nina", "password": GOOD})
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert '<html lang="vi"' in text(client.get("/"))


def test_a_wrong_password_is_a_form_error_in_the_players_language(client, table, player):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt"
    response = client.post("/accounts/login/", {"username": "nina", "password": "wrong-one-123"})
    assert response.status_code == 200
    message = translated("That username and password do not match. Both are case-sensitive.", "pt")
    assert message != "That username and password do not match. Both are case-sensitive."
    assert message in text(response)
    assert "_auth_user_id" not in client.session


def test_logging_out_is_a_post_and_ends_the_session(client, table, player):
    client.force_login(player)
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session
    assert "data-header-balance" not in text(client.get("/"))


def test_changing_the_password(client, table, player):
    assert client.get("/accounts/password/")["Location"].startswith("/accounts/login/")
    client.force_login(player)
    page = text(client.get("/accounts/password/"))
    assert 'name="old_password"' in page
    assert 'name="new_password1"' in page

    wrong = client.post(
        "/accounts/password/", {"old_password": "nope", "new_password1": "new-felt-77", "new_password2": "new-felt-77"}
    )
    assert "Your old password was entered incorrectly" in text(wrong)
    weak = client.post("/accounts/password/", {"old_password": GOOD, "new_password1": "123", "new_password2": "123"})
    assert "This password is too short" in text(weak)

    done = client.post(
        "/accounts/password/", {"old_password": GOOD, "new_password1": "new-felt-77", "new_password2": "new-felt-77"}
    )
    assert done["Location"] == "/accounts/password/done/"
    assert "Password changed" in text(client.get(done["Location"]))
    assert client.session.get("_auth_user_id") == str(player.pk)  # still signed in
    client.logout()
    assert client.post("/accounts/login/", {"username": "nina", "password": GOOD}).status_code == 200  # refused
    assert client.post("/accounts/login/", {"username": "nina", "password": "new-felt-77"}).status_code == 302


# ── profile: language and sound ─────────────────────────────────────────────


def test_the_profile_saves_and_applies_the_language_and_the_sound(client, table, player):
    client.force_login(player)
    page = text(client.get("/accounts/profile/"))
    assert 'name="language"' in page
    assert 'name="sound"' in page
    assert 'data-sound="off"' in page

    response = client.post("/accounts/profile/", {"language": "ru", "sound": "on"})

    assert response["Location"] == "/accounts/profile/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ru"
    profile = Profile.objects.get(user=player)
    assert (profile.language, profile.sound) == ("ru", True)
    page = text(client.get("/accounts/profile/"))
    assert '<html lang="ru"' in page
    assert 'data-sound="on"' in page
    assert translated("Your preferences are saved.", "ru") in page


def test_an_unknown_language_on_the_profile_is_a_form_error_and_changes_nothing(client, table, player):
    client.force_login(player)
    response = client.post("/accounts/profile/", {"language": "xx", "sound": "on"})
    assert response.status_code == 200
    assert "Choose one of the languages in the list." in text(response)
    assert not Profile.objects.filter(user=player, sound=True).exists()


def test_the_headers_language_switcher_saves_a_signed_in_players_choice(client, table, player):
    client.force_login(player)
    page = text(client.get("/"))
    assert 'action="/accounts/language/"' in page

    response = client.post("/accounts/language/", {"language": "pt", "next": "/rules/"})

    assert response.status_code == 302
    assert response["Location"] == "/rules/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "pt"
    assert Profile.objects.get(user=player).language == "pt"
    client.logout()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    login = client.post("/accounts/login/", {"username": "nina", "password": GOOD})
    assert login.cookies[settings.LANGUAGE_COOKIE_NAME].value == "pt"


def test_a_visitors_language_switcher_is_djangos_and_saves_nothing(client, table):
    assert 'action="/i18n/setlang/"' in text(client.get("/"))
    response = client.post("/accounts/language/", {"language": "fa", "next": "/"})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fa"
    assert not Profile.objects.exists()


def test_a_tables_sound_button_saves_the_preference(client, table, player):
    assert client.post("/accounts/sound/", {"sound": "on"}).status_code == 302  # to the login page
    client.force_login(player)
    response = client.post("/accounts/sound/", {"sound": "on"})
    assert response.status_code == 200
    assert response.json() == {"sound": "on"}
    assert Profile.objects.get(user=player).sound is True
    assert 'data-sound="on"' in text(client.get(f"/tables/{table.id}/"))
    bad = client.post("/accounts/sound/", {"sound": "loud"})
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_request"
    assert Profile.objects.get(user=player).sound is True


def test_a_visitor_has_no_balance_no_sound_preference_and_no_profile(client, table):
    page = text(client.get("/"))
    assert "data-header-balance" not in page
    assert "data-sound=" not in page
    assert client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")


# ── the refill ──────────────────────────────────────────────────────────────


def spend_down_to(user, amount: str) -> None:
    wallet_services.wallet_withdraw(user=user, amount=balance_of(user) - Decimal(amount), reason="lost at the tables")


def refill_button(page: str) -> str:
    match = re.search(r'<button type="submit" class="primary" id="refill"[^>]*>', page)
    assert match, "no refill button"
    return match.group(0)


def test_the_refill_button_is_off_while_the_player_can_bet_and_a_forced_post_is_refused(client, table, player):
    client.force_login(player)
    page = text(client.get("/accounts/profile/"))
    assert "disabled" in refill_button(page)
    assert "A refill is for a balance below the smallest table minimum (5.00)." in page

    response = client.post("/accounts/refill/", follow=True)

    assert "A refill is for a balance below the smallest table minimum (5.00)." in text(response)
    assert balance_of(player) == Decimal("1000.00")
    assert LedgerTransaction.objects.count() == 1


def test_the_refill_button_tops_up_a_short_balance_then_waits_an_hour(client, table, player):
    spend_down_to(player, "4.99")
    client.force_login(player)
    page = text(client.get("/accounts/profile/"))
    assert "disabled" not in refill_button(page)
    assert header_balance(page) == "4.99"

    page = text(client.post("/accounts/refill/", follow=True))

    assert "Your play money is back to 1,000.00." in page
    assert header_balance(page) == "1,000.00"
    assert balance_of(player) == Decimal("1000.00")
    spend_down_to(player, "0.00")
    page = text(client.post("/accounts/refill/", follow=True))
    assert "One refill an hour: you can refill again in 60 minutes." in page
    assert "disabled" in refill_button(page)
    assert balance_of(player) == Decimal("0.00")


def test_the_refill_api(client, table, player):
    anonymous = client.post("/api/wallet/refill/")
    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == "not_authenticated"

    client.force_login(player)
    refused = client.post("/api/wallet/refill/")
    assert refused.status_code == 409
    assert refused.json()["code"] == "refill_not_needed"
    assert "5.00" in refused.json()["detail"]

    spend_down_to(player, "0.00")
    done = client.post("/api/wallet/refill/")
    assert done.status_code == 200
    assert done.json() == {"balance": "1000.00", "currency": settings.CURRENCY}

    spend_down_to(player, "1.00")
    soon = client.post("/api/wallet/refill/")
    assert soon.status_code == 409
    body = soon.json()
    assert body["code"] == "refill_too_soon"
    assert body["detail"]
    assert 3590 <= body["retry_after"] <= 3600
    assert balance_of(player) == Decimal("1.00")
    assert client.get("/api/wallet/refill/").status_code == 405


def test_staff_have_no_play_money_in_the_header_or_on_their_profile(client, table, player):
    """A dealer, an operator or a cashier does not play: their header showed a wallet of 0.00 on every page (the
    dealer's console too), and their profile a refill button."""
    client.force_login(make_staff("dora", "Dealers"))
    for path in ("/", f"/tables/{table.id}/", "/accounts/profile/"):
        page = text(client.get(path))
        assert "data-header-balance" not in page, path
    assert 'id="refill"' not in text(client.get("/accounts/profile/"))
    client.force_login(player)
    assert "data-header-balance" in text(client.get("/"))
    assert 'id="refill"' in text(client.get("/accounts/profile/"))
