"""The account page's Responsible gaming section (a server-rendered form through accounts.limits, in the
player's language) and the limits' history in the admin, read-only, for supervisors and auditors."""

from __future__ import annotations

import html
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.urls import reverse

from baccarat_site import roles
from baccarat_site.accounts.limits import play_limits_set
from baccarat_site.accounts.models import PlayLimit
from baccarat_site.accounts.services import sign_in_record
from tests.factories import make_user
from wallets import services as wallet_services

pytestmark = pytest.mark.django_db

PROFILE = "/accounts/profile/"
LIMITS = "/accounts/limits/"


@pytest.fixture
def nina(db):
    user = make_user("nina")
    wallet_services.wallet_open_player(user=user)
    return user


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def in_russian(client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"


def test_the_profile_shows_the_limits_in_force_pending_and_used_in_russian(client, nina):
    play_limits_set(user=nina, changes={"wager_week": "1234.00"})
    play_limits_set(user=nina, changes={"wager_week": "2500.00"})
    client.force_login(nina)
    in_russian(client)
    page = page_text(client.get(PROFILE))
    assert "Ответственная игра" in page  # Responsible gaming
    assert "Лимит ставок за 7 дней" in page  # the 7-day wager limit's label
    assert "1,234.00" in page  # in force, written 1,234.00 in every language
    assert "2,500.00 с " in page  # pending "from" when it applies
    assert "Сохранить лимиты" in page
    assert 'value="2,500.00"' in page  # the form starts at what was asked last


def test_the_form_saves_stricter_limits_at_once_in_russian(client, nina):
    client.force_login(nina)
    in_russian(client)
    answer = client.post(
        LIMITS,
        {"deposit_day": "1,000.00", "loss_day": "", "session_minutes": "90", "reality_check_minutes": "30"},
        follow=True,
    )
    assert answer.status_code == 200
    assert "Ваши лимиты сохранены" in page_text(answer)
    live = {row.kind: row.value for row in PlayLimit.objects.filter(user=nina)}
    assert live == {"deposit_day": Decimal("1000.00"), "session_minutes": 90, "reality_check_minutes": 30}


def test_a_bad_value_in_the_form_shows_why_in_russian_and_changes_nothing(client, nina):
    client.force_login(nina)
    in_russian(client)
    answer = client.post(LIMITS, {"wager_day": "ten", "session_minutes": "90"})
    assert answer.status_code == 200
    text = page_text(answer)
    assert "wager_day" in text
    assert "больше нуля" in text  # "greater than zero", in the Russian message
    assert not PlayLimit.objects.exists()


@pytest.mark.parametrize("minutes", ["²", "①", "١٢٠", "9" * 5000])
def test_minutes_that_only_look_like_digits_get_a_message_in_the_form_not_a_500(client, nina, minutes):
    client.force_login(nina)
    answer = client.post(LIMITS, {"session_minutes": minutes})
    assert answer.status_code == 200
    assert "session_minutes" in page_text(answer)
    assert not PlayLimit.objects.exists()


def test_the_page_form_needs_a_post_and_a_player(client, nina):
    assert client.post(LIMITS, {"wager_day": "10"}).status_code == 302  # to the sign-in page
    client.force_login(nina)
    assert client.get(LIMITS).status_code == 405


def staff(username: str, role: str):
    user = make_user(username, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.mark.parametrize("role", [roles.SUPERVISORS, roles.AUDITORS])
def test_supervisors_and_auditors_see_a_players_limits_and_their_history_read_only(client, nina, role):
    play_limits_set(user=nina, changes={"loss_day": "50.00"})
    play_limits_set(user=nina, changes={"loss_day": "80.00"})
    client.force_login(staff("boss", role))
    page = page_text(client.get(reverse("admin:accounts_player_change", args=[nina.pk])))
    assert "limits the player set" in page
    assert "50.00" in page
    assert "80.00" in page
    assert "pending until" in page
    assert "in force" in page
    assert 'name="play_limits-0-value"' not in page  # read-only: no inputs


def test_table_operators_do_not_see_the_limits(client, nina):
    client.force_login(staff("op", roles.TABLE_OPERATORS))
    assert client.get(reverse("admin:accounts_player_change", args=[nina.pk])).status_code == 403


def test_a_player_with_a_reality_check_gets_its_dialog_on_every_page_in_their_language(client, nina):
    client.force_login(nina)
    assert 'id="reality-check"' not in page_text(client.get(PROFILE))  # none set
    play_limits_set(user=nina, changes={"reality_check_minutes": 15})
    signed_in = sign_in_record(user=nina, request=None)
    in_russian(client)
    page = page_text(client.get(PROFILE))
    assert 'id="reality-check"' in page
    assert 'data-every="15"' in page
    assert f'data-since="{signed_in.at.isoformat()}"' in page
    assert "Вы играете уже ## мин." in page
    assert "Продолжить игру" in page
    assert "reality-check.js" in page


def test_staff_pages_carry_no_reality_check(client):
    boss = staff("boss", roles.SUPERVISORS)
    client.force_login(boss)
    assert 'id="reality-check"' not in page_text(client.get("/"))


def test_the_refill_button_past_a_deposit_limit_says_why_in_russian(client, nina):
    wallet_services.wallet_withdraw(user=nina, amount=wallet_services.wallet_for(user=nina).balance, reason="lost")
    play_limits_set(user=nina, changes={"deposit_day": "500.00"})
    client.force_login(nina)
    in_russian(client)
    page = page_text(client.post("/accounts/refill/", follow=True))
    assert "Это превысит ваш лимит «Лимит пополнений за 24 часа» в 500.00: осталось 500.00." in page
    assert wallet_services.wallet_for(user=nina).balance == 0
