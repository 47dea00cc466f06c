"""The profile's "Take a break": a time-out or a self-exclusion is confirmed on a second page that says until
when (computed by the server) and changes nothing; confirming takes it, signs the player out and the sign-in page
says why. And the reality check's session figures: what was staked since the latest sign-in, and the net."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import SESSION_KEY
from django.urls import reverse
from django.utils import formats, timezone

from baccarat_site.accounts.models import Restriction, SignIn
from tables.models import Bet
from tables.selectors.spending import session_totals
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

BREAK = reverse("take-break")


def until_text(when) -> str:
    return formats.date_format(when, "Y-m-d H:i") + " UTC"


def test_the_profile_offers_a_time_out_and_a_self_exclusion_with_their_periods(client):
    client.force_login(make_user("alice"))
    page = client.get(reverse("profile")).content.decode()
    assert 'id="take-a-break"' in page
    for period in ("24h", "7d", "30d", "6w", "6m", "1y", "5y"):
        assert f'value="{period}"' in page
    assert "6 weeks" in page
    assert "5 years" in page


@pytest.mark.parametrize(
    ("kind", "period", "length"),
    [("time_out", "24h", timedelta(hours=24)), ("time_out", "6w", timedelta(weeks=6)), ("self_exclusion", "1y", None)],
)
def test_the_confirmation_page_says_until_when_and_changes_nothing(client, kind, period, length):
    alice = make_user("alice")
    client.force_login(alice)
    before = timezone.now()
    page = client.get(BREAK, {"kind": kind, "period": period})
    assert page.status_code == 200
    text = page.content.decode()
    end = before + length if length else before.replace(year=before.year + 1)
    # Between the request's start and a minute later (the page is written to the minute).
    assert until_text(end) in text or until_text(end + timedelta(minutes=1)) in text
    assert "nobody can lift it early" in text
    assert 'name="confirm"' in text
    assert not Restriction.objects.filter(user=alice).exists()
    assert client.session.get(SESSION_KEY) == str(alice.pk)


def test_confirming_takes_the_time_out_signs_out_and_the_sign_in_page_says_until_when(client):
    alice = make_user("alice")
    client.force_login(alice)
    answer = client.post(BREAK, {"kind": "time_out", "period": "24h", "confirm": "1"})
    assert answer.status_code == 302
    assert answer["Location"] == reverse("login")
    stop = Restriction.objects.get(user=alice)
    assert stop.kind == Restriction.Kind.TIME_OUT
    assert timedelta(hours=23, minutes=59) < stop.ends_at - stop.starts_at <= timedelta(hours=24)
    assert SESSION_KEY not in client.session
    landing = client.get(answer["Location"]).content.decode()
    assert "You have been signed out." in landing
    assert f"You are taking a time-out until {until_text(stop.ends_at)}." in landing
    # And the profile is a signed-out visitor's again.
    assert client.get(reverse("profile"))["Location"].startswith(reverse("login"))


def test_a_post_without_confirm_only_shows_the_confirmation(client):
    alice = make_user("alice")
    client.force_login(alice)
    page = client.post(BREAK, {"kind": "self_exclusion", "period": "6m"})
    assert page.status_code == 200
    assert 'id="break-until"' in page.content.decode()
    assert not Restriction.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        ({"kind": "time_out", "period": "1h"}, "Choose one of these periods: 24h, 7d, 30d, 6w."),
        ({"kind": "time_out", "period": "1h", "confirm": "1"}, "Choose one of these periods: 24h, 7d, 30d, 6w."),
        ({"kind": "self_exclusion", "period": "24h", "confirm": "1"}, "Choose one of these periods: 6m, 1y, 5y."),
        ({"kind": "holiday", "period": "24h", "confirm": "1"}, "Choose a time-out or a self-exclusion."),
        ({}, "Choose a time-out or a self-exclusion."),
    ],
)
def test_a_bad_kind_or_period_is_refused_clearly_and_changes_nothing(client, data, sentence):
    alice = make_user("alice")
    client.force_login(alice)
    page = client.post(BREAK, data) if "confirm" in data else client.get(BREAK, data)
    assert page.status_code == 400
    assert sentence in page.content.decode()
    assert not Restriction.objects.filter(user=alice).exists()
    assert client.session.get(SESSION_KEY) == str(alice.pk)


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_signed_out_visitor_is_sent_to_sign_in(client, method):
    answer = getattr(client, method)(BREAK, {"kind": "time_out", "period": "24h", "confirm": "1"})
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("login"))
    assert not Restriction.objects.exists()


def test_session_totals_count_the_bets_placed_since_the_latest_sign_in_in_one_query(client, django_assert_num_queries):
    table = fast_table("Session", betting_seconds=60)
    clock = Clock()
    first = drive_to_state(table, clock, "betting")
    alice = make_player("alice", "10000.00")
    client.force_login(alice)  # the session's start: a SignIn
    assert SignIn.objects.filter(user=alice).count() == 1
    place(alice, first.pk, ("banker", "1234.00"), ("player_pair", "5.00"))
    old = Bet.objects.filter(user=alice, type="player_pair")
    old.update(placed_at=timezone.now() - timedelta(hours=2))  # before the session began: not counted
    drive(table, clock, lambda: not Bet.objects.filter(user=alice, outcome__status__isnull=True).exists())
    second = drive_to_state(table, clock, "betting")
    place(alice, second.pk, ("player", "10.00"))  # still open: staked, not yet in the net

    with django_assert_num_queries(1):
        totals = session_totals(user=alice)
    banker = Bet.objects.get(user=alice, type="banker")
    assert totals.staked == Decimal("1244.00")
    assert totals.pending == Decimal("10.00")
    assert totals.net == banker.payout - Decimal("1234.00")

    body = client.get(reverse("session-totals")).json()
    net = banker.payout - Decimal("1234.00")
    assert body["staked"] == "1,244.00"
    assert body["pending"] == "10.00"
    assert body["open"] is True
    assert body["net"] == (f"+{net:,.2f}" if net > 0 else f"{net:,.2f}")


def test_session_totals_are_zero_before_any_sign_in_and_ignore_earlier_sessions():
    alice = make_user("alice")
    assert session_totals(user=alice).staked == Decimal("0.00")
    SignIn.objects.create(user=alice)
    assert session_totals(user=alice).net == Decimal("0.00")


def test_the_session_figures_are_for_signed_in_players_only(client):
    assert client.get(reverse("session-totals")).status_code == 302


def test_another_session_of_the_player_lands_on_the_sign_in_page_saying_why(client, django_capture_on_commit_callbacks):
    alice = make_user("alice")
    other = type(client)()
    other.force_login(alice)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(BREAK, {"kind": "self_exclusion", "period": "5y", "confirm": "1"})
    stop = Restriction.objects.get(user=alice)
    answer = other.get(reverse("profile"))
    assert answer["Location"] == reverse("login")
    landing = other.get(answer["Location"]).content.decode()
    assert f"You have excluded yourself from play until {until_text(stop.ends_at)}." in landing
