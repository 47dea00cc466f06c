"""A player sees their personal maximum: on the table page next to the table's limits (and in the page's config,
which the board checks before sending), and on the profile page, in every language."""

from __future__ import annotations

import html
import json
import re
from decimal import Decimal

import pytest
from django.conf import settings

from baccarat_site.accounts.services import player_limit_set
from tests.factories import make_table, make_user
from wallets import services as wallet_services


@pytest.fixture
def table(db):
    return make_table("Baccarat 1")


@pytest.fixture
def nina(client, db):
    user = make_user("nina")
    wallet_services.wallet_open_player(user=user)
    client.force_login(user)
    return user


def restrict(user, amount: str) -> None:
    supervisor = make_user(f"super-{user.username}", is_staff=True)
    player_limit_set(user=user, max_stake=Decimal(amount), reason="restricted at request", actor=supervisor)


def page(client, url: str, lang: str = "en") -> str:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def config_of(text: str) -> dict:
    match = re.search(r'<script id="table-config" type="application/json">(.*?)</script>', text, re.S)
    assert match
    return json.loads(match.group(1))


def test_the_table_page_shows_the_personal_maximum_next_to_the_tables_limits(client, table, nina):
    restrict(nina, "1234.50")
    text = page(client, f"/tables/{table.pk}/")
    assert re.search(r'<p id="personal-limits" class="personal-limits">', text)
    assert "Your personal maximum per bet type in a round" in text
    assert '<strong id="personal-max" dir="ltr">1,234.50</strong>' in text
    assert config_of(text)["personal_limits"] == {"max_stake": "1234.50"}


def test_without_a_personal_maximum_the_line_is_hidden_and_a_watcher_has_none(client, table, nina):
    text = page(client, f"/tables/{table.pk}/")
    assert '<p id="personal-limits" class="personal-limits" hidden>' in text
    assert config_of(text)["personal_limits"] is None
    client.logout()
    watcher = page(client, f"/tables/{table.pk}/")
    assert 'id="personal-limits"' not in watcher
    assert config_of(watcher)["personal_limits"] is None


def test_the_profile_shows_the_personal_maximum_or_that_there_is_none(client, table, nina):
    assert "No personal limit: each table's own limits apply." in page(client, "/accounts/profile/")
    restrict(nina, "75.00")
    text = page(client, "/accounts/profile/")
    assert '<bdi dir="ltr" id="personal-max">75.00</bdi>' in text
    assert "never raises a table's own maximum" in text


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fa", "سقف شخصی شما"),
        ("hi", "व्यक्तिगत अधिकतम सीमा"),
        ("vi", "Mức cược tối đa cá nhân"),
        ("ru", "Ваш личный максимум"),
        ("pt", "Seu máximo pessoal"),
    ],
)
def test_the_personal_maximum_is_shown_in_the_players_language(client, table, nina, lang, words):
    restrict(nina, "75.00")
    for url in (f"/tables/{table.pk}/", "/accounts/profile/"):
        text = page(client, url, lang)
        assert words in text
        assert "75.00" in text
