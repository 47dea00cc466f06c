"""Risk alerts: a large bet, a large win, a table's worst-case exposure and linked accounts on both sides of a
round, each raised once however often the round is scanned, and nothing under the thresholds."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from baccarat_site import roles
from baccarat_site.celery import app
from baccarat_site.errors import DomainError
from tables import tasks
from tables.models import RiskAlert, Round, Shoe, Variant
from tables.services import risk, settlement, transitions
from tests.factories import make_staff

pytestmark = pytest.mark.django_db

Kind = RiskAlert.Kind


@pytest.fixture(autouse=True)
def _thresholds(settings):
    settings.RISK_BET_THRESHOLD = "1000.00"
    settings.RISK_WIN_THRESHOLD = "3000.00"
    settings.RISK_EXPOSURE_THRESHOLD = "4000.00"


def close(round_: Round) -> Round:
    Round.objects.filter(pk=round_.pk).update(state=Round.State.CLOSED)
    round_.refresh_from_db()
    return round_


def scan_twice(round_: Round) -> list[RiskAlert]:
    first = risk.risk_scan_round(round_id=round_.pk)
    assert risk.risk_scan_round(round_id=round_.pk) == 0
    alerts = list(RiskAlert.objects.filter(round=round_).order_by("kind", "id"))
    assert first == len(alerts)
    return alerts


def sign_in(username: str, address: str, **extra: str) -> Client:
    client = Client(REMOTE_ADDR=address, HTTP_USER_AGENT="TestBrowser/1.0", **extra)
    assert client.post("/accounts/login/", {"username": username, "password": "pass-word-123"}).status_code == 302
    return client


def test_a_bet_at_the_threshold_raises_one_large_bet_alert_however_often_the_round_is_scanned(
    betting_round, player, place
):
    alice, bob = player("alice", "5000.00"), player("bob", "5000.00")
    place(alice, betting_round, ("banker", "1000.00"))
    place(alice, betting_round, ("player", "1200.00"))
    place(bob, betting_round, ("banker", "999.99"))
    assert risk.risk_scan_round(round_id=betting_round.pk) == 0  # still taking bets: nothing yet

    (alert,) = scan_twice(close(betting_round))

    assert alert.kind == Kind.LARGE_BET
    assert (alert.user, alert.table_id, alert.amount) == (alice, betting_round.table_id, Decimal("1200.00"))
    assert alert.detail == "alice bet 1,200.00 on Player at Money table, shoe 1 round 1 (2 bets of 1,000.00 or more)."
    assert alert.is_open


def test_nothing_is_raised_under_the_thresholds(betting_round, player, place, deal):
    alice, bob = player("alice", "5000.00"), player("bob", "5000.00")
    place(alice, betting_round, ("player", "999.99"), ("tie", "100.00"))
    place(bob, betting_round, ("banker", "999.99"))
    deal(betting_round, "9H 2C KD 3S")  # Player natural 9: Player wins 1,999.98 back, under 3,000.00
    settlement.round_settle(round_id=betting_round.pk)

    assert scan_twice(betting_round) == []


def test_a_large_win_is_raised_once_the_round_is_settled(betting_round, player, place, deal):
    alice = player("alice", "5000.00")
    place(alice, betting_round, ("tie", "400.00"))
    deal(betting_round, "9H 9C KD KS")  # 9 against 9: a Tie paying 8:1
    assert scan_twice(betting_round) == []  # dealt, not paid: no win yet

    settlement.round_settle(round_id=betting_round.pk)
    (alert,) = scan_twice(betting_round)

    assert (alert.kind, alert.user, alert.amount) == (Kind.LARGE_WIN, alice, Decimal("3600.00"))
    assert alert.detail == (
        "alice was paid 3,600.00 (winnings 3,200.00 on 400.00 staked) at Money table, shoe 1 round 1."
    )


def test_a_worst_case_exposure_over_the_threshold_raises_one_alert_for_the_table(betting_round, player, place):
    alice, bob = player("alice", "5000.00"), player("bob", "5000.00")
    place(alice, betting_round, ("tie", "300.00"))  # a Tie pays 2,400.00 net
    place(bob, betting_round, ("tie", "200.00"), ("player_pair", "200.00"))  # 1,600.00 + 2,200.00 net
    # Worst case: a Tie with a Player pair, 2,400 + 1,600 + 2,200 = 6,200.00 net.

    (alert,) = scan_twice(close(betting_round))

    assert (alert.kind, alert.user, alert.other_user, alert.amount) == (Kind.EXPOSURE, None, None, Decimal("6200.00"))
    assert alert.detail.startswith("Money table, shoe 1 round 1: the house could lose 6,200.00 on Tie")
    assert alert.detail.endswith("(700.00 staked by 2 players).")


def test_exposure_is_priced_with_the_rounds_shoe_not_the_variant_as_edited_since(betting_round, player, place):
    # A Perfect Pair can win only from two decks or more. The variant is switched to one deck after this round's
    # 8-deck shoe was made: the switch is the next shoe's, and this round's Perfect Pair can still pay 25:1.
    alice = player("alice", "5000.00")
    place(alice, betting_round, ("perfect_pair", "300.00"))
    shoe = betting_round.shoe
    Shoe.objects.filter(pk=shoe.pk).update(state={**(shoe.state or {}), "decks": 8})  # as a dealt shoe records it
    Variant.objects.filter(pk=betting_round.table.variant_id).update(decks=1)

    (alert,) = scan_twice(close(betting_round))

    assert (alert.kind, alert.amount) == (Kind.EXPOSURE, Decimal("7500.00"))


def test_two_players_signed_in_from_one_address_backing_player_and_banker_raise_a_linked_accounts_alert(
    betting_round, player, place
):
    alice, bob, carol = player("alice"), player("bob"), player("carol")
    sign_in("alice", "203.0.113.7")
    sign_in("bob", "203.0.113.7")
    sign_in("carol", "198.51.100.2")  # bets Banker too, from elsewhere: not linked
    place(alice, betting_round, ("player", "50.00"))
    place(bob, betting_round, ("banker", "40.00"))
    place(carol, betting_round, ("banker", "40.00"))

    (alert,) = scan_twice(close(betting_round))

    assert (alert.kind, alert.user, alert.other_user) == (Kind.LINKED_ACCOUNTS, alice, bob)
    assert alert.amount == Decimal("90.00")
    assert alert.detail == (
        "alice (Player 50.00) and bob (Banker 40.00) backed Player and Banker at Money table, shoe 1 round 1; "
        "both signed in from address 203.0.113.7."
    )


def test_behind_a_trusted_proxy_accounts_are_linked_by_their_own_addresses_not_the_proxys(
    betting_round, player, place, settings
):
    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    alice, bob, carol = player("alice"), player("bob"), player("carol")
    sign_in("alice", "10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.7")
    sign_in("bob", "10.0.0.10", HTTP_X_FORWARDED_FOR="198.51.100.2")  # another client: not linked
    sign_in("carol", "10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.7")
    place(alice, betting_round, ("player", "50.00"))
    place(bob, betting_round, ("banker", "40.00"))
    place(carol, betting_round, ("banker", "30.00"))

    (alert,) = scan_twice(close(betting_round))

    assert (alert.kind, alert.user, alert.other_user) == (Kind.LINKED_ACCOUNTS, alice, carol)
    assert alert.detail.endswith("both signed in from address 203.0.113.7.")


def test_the_linked_accounts_look_back_ends_at_the_now_the_scan_is_given(betting_round, player, place, settings):
    alice, bob = player("alice"), player("bob")
    sign_in("alice", "203.0.113.7")
    sign_in("bob", "203.0.113.7")
    place(alice, betting_round, ("player", "50.00"))
    place(bob, betting_round, ("banker", "40.00"))
    close(betting_round)

    beyond = timezone.now() + timedelta(days=settings.RISK_LINK_DAYS, hours=1)
    assert risk.risk_scan_round(round_id=betting_round.pk, now=beyond) == 0
    assert risk.risk_scan_round(round_id=betting_round.pk, now=timezone.now()) == 1


def test_accounts_used_from_one_device_are_linked_whatever_their_addresses(betting_round, player, place):
    alice, bob = player("alice"), player("bob")
    browser = sign_in("alice", "203.0.113.7")
    device = browser.cookies["casino_device"].value
    browser.post("/accounts/logout/")
    browser.defaults["REMOTE_ADDR"] = "198.51.100.2"  # another address, the same browser
    assert browser.post("/accounts/login/", {"username": "bob", "password": "pass-word-123"}).status_code == 302
    place(alice, betting_round, ("banker", "50.00"))
    place(bob, betting_round, ("player", "50.00"))

    (alert,) = scan_twice(close(betting_round))

    assert (alert.kind, alert.user, alert.other_user) == (Kind.LINKED_ACCOUNTS, alice, bob)
    assert f"device {device[:8]}…" in alert.detail


def test_linked_accounts_on_the_same_side_raise_nothing(betting_round, player, place):
    alice, bob = player("alice"), player("bob")
    sign_in("alice", "203.0.113.7")
    sign_in("bob", "203.0.113.7")
    place(alice, betting_round, ("banker", "50.00"))
    place(bob, betting_round, ("banker", "40.00"))

    assert scan_twice(close(betting_round)) == []


def test_closing_the_betting_and_settling_each_queue_the_scan_after_commit(
    betting_round, player, place, deal, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kw: sent.append((name, args)))
    alice = player("alice", "5000.00")
    place(alice, betting_round, ("banker", "1500.00"))
    Round.objects.filter(pk=betting_round.pk).update(closes_at=betting_round.opens_at)

    with django_capture_on_commit_callbacks(execute=True):
        assert transitions.round_close(round_id=betting_round.pk)
    assert sent == [("tables.tasks.risk_scan", [betting_round.pk])]
    assert RiskAlert.objects.count() == 0  # nothing on the way: the task raises them

    tasks.risk_scan.apply(args=[betting_round.pk])
    tasks.risk_scan.apply(args=[betting_round.pk])
    assert list(RiskAlert.objects.values_list("kind", flat=True)) == [Kind.LARGE_BET]

    deal(betting_round, "9H 2C KD 3S")
    with django_capture_on_commit_callbacks(execute=True):
        assert transitions.round_finish(round_id=betting_round.pk)
    assert sent[-1] == ("tables.tasks.risk_scan", [betting_round.pk])


def test_a_cancelled_round_raises_nothing(betting_round, player, place):
    alice = player("alice", "5000.00")
    place(alice, betting_round, ("banker", "1500.00"))
    settlement.round_refund(round_id=betting_round.pk, reason="test")

    assert scan_twice(betting_round) == []


# ── acknowledging ───────────────────────────────────────────────────────────


@pytest.fixture
def alert(betting_round, player, place) -> RiskAlert:
    place(player("alice", "5000.00"), betting_round, ("banker", "1500.00"))
    risk.risk_scan_round(round_id=close(betting_round).pk)
    return RiskAlert.objects.get()


def test_acknowledging_records_who_and_when_and_is_audited(alert):
    operator = make_staff("olga", roles.TABLE_OPERATORS)

    done = risk.risk_alert_acknowledge(alert_id=alert.pk, actor=operator, note="  Known high roller.  ")

    alert.refresh_from_db()
    assert (alert.acknowledged_by, alert.note, alert.is_open) == (operator, "Known high roller.", False)
    assert done.acknowledged_at == alert.acknowledged_at
    entry = LogEntry.objects.get_for_object(alert).get()
    assert entry.actor == operator
    assert entry.additional_data == {
        "action": "risk_alert.acknowledge",
        "reason": "Known high roller.",
        "actor_name": entry.actor.username,
    }


def test_acknowledging_stamps_the_now_it_is_given(alert):
    now = timezone.now() + timedelta(minutes=3)
    done = risk.risk_alert_acknowledge(alert_id=alert.pk, actor=make_staff("olga", roles.TABLE_OPERATORS), now=now)
    assert done.acknowledged_at == now


def test_an_alert_is_acknowledged_once(alert):
    supervisor = make_staff("sam", roles.SUPERVISORS)
    risk.risk_alert_acknowledge(alert_id=alert.pk, actor=supervisor)

    with pytest.raises(risk.AlreadyAcknowledged, match="Already acknowledged by sam"):
        risk.risk_alert_acknowledge(alert_id=alert.pk, actor=make_staff("olga", roles.TABLE_OPERATORS))
    assert LogEntry.objects.get_for_object(alert).count() == 1


def test_an_auditor_cannot_acknowledge(alert):
    auditor = make_staff("audrey", roles.AUDITORS)
    assert auditor.has_perm("tables.view_riskalert")

    with pytest.raises(DomainError) as refused:
        risk.risk_alert_acknowledge(alert_id=alert.pk, actor=auditor)

    assert refused.value.status == 403
    alert.refresh_from_db()
    assert alert.is_open
    assert not LogEntry.objects.get_for_object(alert).exists()


def test_the_risk_scan_command_raises_what_lost_tasks_missed_once(betting_round, player, place):
    place(player("alice", "5000.00"), betting_round, ("banker", "1500.00"))
    Round.objects.filter(pk=betting_round.pk).update(state=Round.State.CLOSED, closed_at=timezone.now())
    out = StringIO()

    call_command("risk_scan", "--hours", "1", stdout=out)
    call_command("risk_scan", "--hours", "1", stdout=out)

    assert out.getvalue().splitlines() == ["1 round(s) scanned; 1 new alert(s)", "1 round(s) scanned; 0 new alert(s)"]
    assert RiskAlert.objects.get().kind == Kind.LARGE_BET
