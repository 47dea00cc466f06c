"""Stopping a player's play: a supervisor suspends, reinstates or closes an account from the admin; a player takes
a time-out or excludes themselves. While a stop runs, the player's session ends, sign-in and API tokens are
refused with a sentence that says until when, and every bet is refused with the stop's code; a player's own stop
is never lifted early, by anyone."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from baccarat_site import roles
from baccarat_site.accounts import services
from baccarat_site.accounts.models import PlayerNote, Restriction, SignIn
from baccarat_site.errors import DomainError
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

PLAYERS = reverse("admin:accounts_player_changelist")
PASSWORD = "pass-word-123"


def staff(username: str, role: str):
    user = make_user(username, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def supervisor(db):
    return staff("boss", roles.SUPERVISORS)


@pytest.fixture
def betting_round(db):
    table = fast_table("Stops", betting_seconds=60)
    return drive_to_state(table, Clock(), "betting")


def act(client, who, player, action: str, reason: str = "Chargeback under review", **fields: str):
    client.force_login(who)
    data = {"action": action, "_selected_action": [player.pk]}
    page = client.post(PLAYERS, data)
    return page, client.post(PLAYERS, data | {"apply": "Go", "reason": reason, **fields})


def bet_refusal(player, round_id: int) -> DomainError:
    with pytest.raises(DomainError) as refused:
        place(player, round_id, ("player", "10.00"))
    return refused.value


def token_answer(username: str):
    return APIClient().post("/api/auth/token/", {"username": username, "password": PASSWORD}, format="json")


def test_a_supervisor_suspends_a_player_who_is_signed_out_and_refused_sign_in_tokens_and_bets(
    client, supervisor, betting_round, django_capture_on_commit_callbacks
):
    alice = make_player("alice")
    Token.objects.create(user=alice)
    player_client = type(client)()
    player_client.force_login(alice)
    assert player_client.get("/accounts/profile/").status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        page, done = act(client, supervisor, alice, "suspend")
    assert page.status_code == 200
    assert done.status_code == 302

    stop = Restriction.objects.get(user=alice)
    assert (stop.kind, stop.created_by, stop.reason, stop.ends_at) == (
        "suspension",
        supervisor,
        "Chargeback under review",
        None,
    )
    log = LogEntry.objects.get(additional_data__action="player.suspend")
    assert (log.actor, log.changes_dict["restriction"]) == (supervisor, [None, "suspension"])
    assert not Token.objects.filter(user=alice).exists()
    # The open session ends at its next request.
    assert player_client.get("/accounts/profile/")["Location"] == "/accounts/login/"
    assert player_client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")  # now signed out
    api = player_client.get("/api/wallet/")
    assert api.status_code in (401, 403)
    # Sign-in and a new token are refused, saying why.
    login = type(client)().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert "This account is suspended" in login.content.decode()
    refused = token_answer("alice")
    assert (refused.status_code, refused.json()["code"]) == (403, "account_suspended")
    # And bets, whatever the path.
    assert bet_refusal(alice, betting_round.pk).code == "account_suspended"


def test_a_reinstated_player_signs_in_and_bets_again(client, supervisor, betting_round):
    alice = make_player("alice")
    act(client, supervisor, alice, "suspend")
    act(client, supervisor, alice, "reinstate", "Review closed, no fault")

    stop = Restriction.objects.get(user=alice)
    assert (stop.lifted_by, stop.lift_reason) == (supervisor, "Review closed, no fault")
    assert LogEntry.objects.filter(additional_data__action="player.reinstate", actor=supervisor).count() == 1
    assert token_answer("alice").status_code == 200
    assert place(alice, betting_round.pk, ("player", "10.00"))["bets"][0]["amount"] == "10.00"
    client.logout()
    assert client.post("/accounts/login/", {"username": "alice", "password": PASSWORD}).status_code == 302


@pytest.mark.parametrize("role", [roles.TABLE_OPERATORS, roles.CASHIERS, roles.AUDITORS])
def test_only_supervisors_see_or_use_the_player_actions(client, role):
    alice = make_player("alice")
    who = staff("someone", role)
    client.force_login(who)
    listing = client.get(PLAYERS)
    if listing.status_code == 200:
        form = listing.context["action_form"]
        choices = set(dict(form.fields["action"].choices)) if form is not None else set()
        assert not choices & {"suspend", "reinstate", "close_account"}
    else:
        assert listing.status_code == 403
    client.post(PLAYERS, {"action": "suspend", "_selected_action": [alice.pk], "apply": "Go", "reason": "No right"})
    assert not Restriction.objects.exists()
    with pytest.raises(services.NotAllowed):
        services.player_suspend(user=alice, reason="No right", actor=who)


def test_a_suspension_needs_a_reason_and_staff_accounts_are_not_suspended_here(client, supervisor):
    alice = make_player("alice")
    _, missing = act(client, supervisor, alice, "suspend", "")
    assert missing.status_code == 200
    assert not Restriction.objects.exists()
    with pytest.raises(DomainError) as refused:
        services.player_suspend(user=staff("cashier", roles.CASHIERS), reason="Not for staff", actor=supervisor)
    assert refused.value.code == "not_a_player"


def test_a_closed_account_stays_closed_when_reinstated(client, supervisor, betting_round):
    alice = make_player("alice")
    act(client, supervisor, alice, "close_account", "Asked to close the account")
    act(client, supervisor, alice, "reinstate", "Trying to reopen")
    assert bet_refusal(alice, betting_round.pk).code == "account_closed"
    assert token_answer("alice").json()["code"] == "account_closed"


@pytest.mark.parametrize(
    ("kind", "period", "length", "code"),
    [
        ("time_out", "24h", timedelta(hours=24), "timed_out"),
        ("time_out", "6w", timedelta(weeks=6), "timed_out"),
        ("self_exclusion", "6m", timedelta(days=181), "self_excluded"),
        ("self_exclusion", "5y", timedelta(days=1826), "self_excluded"),
    ],
)
def test_a_players_own_stop_refuses_bets_until_its_end_and_nobody_lifts_it(
    client, supervisor, betting_round, kind, period, length, code
):
    alice = make_player("alice")
    before = timezone.now()
    stop = services.player_self_restrict(user=alice, kind=kind, period=period)
    assert abs((stop.ends_at - before) - length) < timedelta(days=2)

    refused = bet_refusal(alice, betting_round.pk)
    assert refused.code == code
    assert f"{stop.ends_at:%Y-%m-%d}" in refused.detail
    assert token_answer("alice").json()["code"] == code
    # A supervisor's reinstatement lifts suspensions only, and the database refuses any lift of this one.
    act(client, supervisor, alice, "reinstate", "Player asked to come back")
    assert bet_refusal(alice, betting_round.pk).code == code
    with pytest.raises(IntegrityError), transaction.atomic():
        Restriction.objects.filter(pk=stop.pk).update(lifted_at=timezone.now(), lifted_by=supervisor)
    assert Restriction.objects.get(pk=stop.pk).lifted_at is None


def test_a_time_out_that_has_ended_no_longer_stops_play(betting_round):
    alice = make_player("alice")
    start = timezone.now() - timedelta(days=2)
    Restriction.objects.create(user=alice, kind="time_out", starts_at=start, ends_at=start + timedelta(hours=24))
    assert place(alice, betting_round.pk, ("banker", "5.00"))["balance"] == "995.00"


def test_an_unknown_period_is_refused_and_changes_nothing():
    alice = make_player("alice")
    with pytest.raises(DomainError) as refused:
        services.player_self_restrict(user=alice, kind="time_out", period="1h")
    assert refused.value.code == "invalid_period"
    assert not Restriction.objects.exists()


def test_the_restriction_services_stamp_the_now_they_are_given(supervisor):
    alice, bob = make_player("alice"), make_player("bob")
    now = timezone.now() - timedelta(minutes=3)

    suspended = services.player_suspend(user=alice, reason="Chargeback under review", actor=supervisor, now=now)
    assert suspended.starts_at == now
    later = now + timedelta(minutes=1)
    assert services.player_reinstate(user=alice, reason="Cleared", actor=supervisor, now=later) == 1
    assert Restriction.objects.get(pk=suspended.pk).lifted_at == later

    closed = services.player_close(user=alice, reason="Asked to leave", actor=supervisor, now=later)
    assert closed.starts_at == later

    stop = services.player_self_restrict(user=bob, kind="time_out", period="24h", now=now)
    assert (stop.starts_at, stop.ends_at) == (now, now + timedelta(hours=24))


def test_a_stale_session_mark_without_a_restriction_is_dropped_and_the_player_stays_signed_in(client):
    alice = make_player("alice")
    cache.set(f"restricted:{alice.pk}", "suspension")
    client.force_login(alice)
    assert client.get("/accounts/profile/").status_code == 200
    assert cache.get(f"restricted:{alice.pk}") is None
    assert Decimal(alice.wallet.balance) == Decimal("1000.00")


@pytest.mark.parametrize(
    ("url", "period", "code"),
    [("/api/account/time-out/", "7d", "timed_out"), ("/api/account/self-exclusion/", "1y", "self_excluded")],
)
def test_a_player_stops_themselves_over_the_api_and_their_token_stops_working(betting_round, url, period, code):
    alice = make_player("alice")
    token = Token.objects.create(user=alice)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    refused = api.post(url, {"period": "forever"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_period")
    assert not Restriction.objects.exists()

    taken = api.post(url, {"period": period}, format="json")
    assert taken.status_code == 201
    body = taken.json()
    assert body["kind"] == Restriction.objects.get().kind
    assert body["ends_at"] > body["starts_at"]
    assert api.get("/api/wallet/").status_code == 401  # the token was revoked
    assert token_answer("alice").json()["code"] == code
    assert bet_refusal(alice, betting_round.pk).code == code


def test_signed_out_callers_cannot_take_a_time_out_for_anyone():
    response = APIClient().post("/api/account/time-out/", {"period": "24h"}, format="json")
    assert response.status_code in (401, 403)
    assert not Restriction.objects.exists()


def test_a_supervisor_sees_a_players_page_with_money_sign_ins_stops_and_adds_a_note(client, supervisor):
    alice = make_player("alice", "250.00")
    SignIn.objects.create(user=alice, ip_address="203.0.113.9", user_agent="Firefox/140")
    services.player_self_restrict(user=alice, kind="time_out", period="24h")
    _page, done = act(client, supervisor, alice, "add_note", note="Called support about a late payout")
    assert done.status_code == 302
    note = PlayerNote.objects.get()
    assert (note.player, note.author, note.text) == (alice, supervisor, "Called support about a late payout")
    assert LogEntry.objects.filter(additional_data__action="player.note", actor=supervisor).exists()

    detail = client.get(reverse("admin:accounts_player_change", args=[alice.pk])).content.decode()
    for shown in ("250.00 CHIPS", "203.0.113.9", "Firefox/140", "Time-out", "Called support about a late payout"):
        assert shown in detail, shown
    assert "stopped: time-out until" in client.get(PLAYERS).content.decode()


def test_staff_below_supervisor_cannot_write_notes():
    alice = make_player("alice")
    with pytest.raises(services.NotAllowed):
        services.player_note_add(player=alice, text="Not mine to write", actor=staff("c", roles.CASHIERS))
