"""Risk alerts in the admin and on the live floor, and the back office on the admin home, for each staff role."""

from __future__ import annotations

import re

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import NoReverseMatch, reverse

from baccarat_site import roles
from tables.models import RiskAlert, Round
from tables.services import risk
from tests.factories import make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:tables_riskalert_changelist"


@pytest.fixture(autouse=True)
def _thresholds(settings):
    settings.RISK_BET_THRESHOLD = "1000.00"


@pytest.fixture
def alert(betting_round, player, place) -> RiskAlert:
    place(player("alice", "5000.00"), betting_round, ("banker", "1500.00"))
    Round.objects.filter(pk=betting_round.pk).update(state=Round.State.CLOSED)
    risk.risk_scan_round(round_id=betting_round.pk)
    return RiskAlert.objects.get()


def staff_client(username: str, role: str | None) -> tuple[Client, object]:
    user = make_user(username, is_staff=True)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    client = Client()
    client.force_login(user)
    return client, user


def test_the_changelist_shows_who_what_and_links_to_the_round_and_the_player_s_wallet(alert):
    client, _supervisor = staff_client("sam", roles.SUPERVISORS)

    html = client.get(reverse(CHANGELIST), {"status": "open"}).content.decode()

    assert "alice bet 1,500.00 on Banker at Money table, shoe 1 round 1." in html
    assert reverse("admin:tables_round_change", args=[alert.round_id]) in html
    assert reverse("admin:wallets_wallet_change", args=[alert.user.wallet.pk]) in html
    assert reverse("admin:tables_riskalert_acknowledge", args=[alert.pk]) in html


def test_an_operator_acknowledges_from_the_floor_with_a_note_and_it_is_audited(alert):
    client, operator = staff_client("olga", roles.TABLE_OPERATORS)
    floor = client.get(reverse("admin_floor:floor_live")).content.decode()
    assert f'data-alert-id="{alert.pk}"' in floor
    assert "Risk alerts: 1 open" in floor
    ack = reverse("admin:tables_riskalert_acknowledge", args=[alert.pk])
    assert f"{ack}?next=floor" in floor
    assert client.get(ack).status_code == 200

    response = client.post(f"{ack}?next=floor", {"note": "Known high roller.", "apply": "1"})

    assert response.status_code == 302
    assert response["Location"] == reverse("admin_floor:floor_live")
    alert.refresh_from_db()
    assert (alert.acknowledged_by, alert.note) == (operator, "Known high roller.")
    assert LogEntry.objects.get_for_object(alert).get().actor == operator
    assert "Risk alerts: 0 open" in client.get(reverse("admin_floor:floor_live")).content.decode()


def test_the_list_action_acknowledges_the_selected_alerts(alert):
    client, supervisor = staff_client("sam", roles.SUPERVISORS)
    chosen = {"action": "acknowledge_alerts", "_selected_action": [alert.pk]}
    assert "Acknowledge risk alert" in client.post(reverse(CHANGELIST), chosen).content.decode()

    client.post(reverse(CHANGELIST), {**chosen, "note": "", "apply": "1"})

    alert.refresh_from_db()
    assert (alert.acknowledged_by, alert.note) == (supervisor, "")


def test_an_auditor_sees_the_alerts_but_cannot_acknowledge_them(alert):
    client, _auditor = staff_client("audrey", roles.AUDITORS)
    ack = reverse("admin:tables_riskalert_acknowledge", args=[alert.pk])

    listing = client.get(reverse(CHANGELIST)).content.decode()
    floor = client.get(reverse("admin_floor:floor_live")).content.decode()
    refused = client.post(ack, {"note": "mine", "apply": "1"})
    client.post(reverse(CHANGELIST), {"action": "acknowledge_alerts", "_selected_action": [alert.pk], "apply": "1"})

    assert "alice bet 1,500.00" in listing
    assert ack not in listing
    assert "acknowledge_alerts" not in listing
    assert f'data-alert-id="{alert.pk}"' in floor
    assert ack not in floor
    assert refused.status_code == 403
    alert.refresh_from_db()
    assert alert.is_open


def test_a_cashier_does_not_see_risk_alerts(alert):
    client, _cashier = staff_client("cass", roles.CASHIERS)
    assert client.get(reverse(CHANGELIST)).status_code == 403


# ── the admin home: the back office each role may use ───────────────────────


def _approvals_exist() -> bool:
    try:
        reverse("admin:wallets_moneyrequest_changelist")
    except NoReverseMatch:
        return False
    return True


def home_links(client: Client) -> set[str]:
    html = client.get(reverse("admin:index")).content.decode()
    block = re.search(r'<div class="module" id="back-office">(.*?)</div>', html, re.S)
    return set(re.findall(r'<th scope="row"><a href="[^"]+">([^<]+)</a>', block.group(1))) if block else set()


APPROVALS = {"Approvals"} if _approvals_exist() else set()
EVERYTHING = {"Live floor", "Tables by day", "Players by day", "Risk alerts"} | APPROVALS


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        (roles.TABLE_OPERATORS, {"Live floor", "Tables by day", "Risk alerts"}),
        (roles.CASHIERS, {"Players by day"} | APPROVALS),
        (roles.SUPERVISORS, EVERYTHING),
        (roles.AUDITORS, EVERYTHING),
        (None, set()),
    ],
)
def test_the_admin_home_links_each_role_to_exactly_the_back_office_pages_it_may_use(role, expected):
    client, _user = staff_client("staffer", role)

    links = home_links(client)

    assert links == expected
    for label, url, _description in _links_of(client):
        assert client.get(url).status_code == 200, label


def _links_of(client: Client) -> list[tuple[str, str, str]]:
    html = client.get(reverse("admin:index")).content.decode()
    found = re.findall(r'<th scope="row"><a href="([^"]+)">([^<]+)</a>', html)
    return [(label, url.replace("&amp;", "&"), "") for url, label in found]


def test_the_floor_s_menu_is_the_same_list(alert):
    client, _operator = staff_client("olga", roles.TABLE_OPERATORS)
    html = client.get(reverse("admin_floor:floor_live")).content.decode()
    menu = re.search(r'<nav class="floor-nav">(.*?)</nav>', html, re.S).group(1)
    assert re.findall(r">([^<]+)</a>", menu) == ["Live floor", "Tables by day", "Risk alerts"]
