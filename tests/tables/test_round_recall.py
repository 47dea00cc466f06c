"""Game recall: a round's admin page shows what a dispute needs (tables/admin_records/rounds.py, RoundAdmin): the
cards in order with the time each was dealt, who paused, resumed or cancelled it and why, and every bet with its terms
and outcome. Real rounds, driven through the state machine; the page as an auditor sees it."""

from __future__ import annotations

import getpass
import html
import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from tables.engine import Paytable
from tables.engine.display import payout_label
from tables.models import Round
from tables.services import controls
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table, latest_round, make_player, place

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(client):
    return make_user("olga", is_staff=True, is_superuser=True)


@pytest.fixture
def auditor_page(client):
    auditor = make_user("audrey", is_staff=True)
    auditor.groups.add(Group.objects.get(name="Auditors"))

    def page(round_: Round) -> str:
        client.force_login(auditor)
        response = client.get(reverse("admin:tables_round_change", args=[round_.pk]))
        assert response.status_code == 200
        return html.unescape(response.content.decode())

    return page


def as_operator(client, operator, url: str, reason: str) -> None:
    client.force_login(operator)
    assert client.post(url, {"reason": reason}).status_code == 302


def rows(page: str, attribute: str) -> dict[str, str]:
    """``<tr data-<attribute>="key">…</tr>`` rows as {key: their text, tags stripped}."""
    found = re.findall(rf'<tr data-{attribute}="([^"]+)">(.*?)</tr>', page, flags=re.S)
    return {key: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for key, body in found}


def test_a_rounds_page_shows_its_cards_bets_and_who_paused_and_resumed_it_and_why(client, operator, auditor_page):
    table = fast_table()
    alice, bob = make_player("alice", "500.00"), make_player("bob", "500.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"), ("tie", "5.00"))
    place(bob, round_.pk, ("banker", "20.00"), mode="no_commission")
    drive(table, clock, lambda: (r := latest_round(table)).state == "dealing" and len(r.cards) >= 2)

    as_operator(client, operator, f"/admin/tables/table/{table.pk}/pause/", "Card scanner check")
    call_command("table_resume", str(table.pk), "--reason", "Scanner replaced")
    drive_to_state(table, clock, "settled")
    round_.refresh_from_db()
    page = auditor_page(round_)

    # The cards in deal order, each with the time it was dealt (kept on the round).
    steps = rows(page, "position")
    assert len(steps) == len(round_.cards) >= 4
    for card in round_.cards:
        dealt_at = datetime.fromisoformat(card["dealt_at"]).astimezone(UTC)
        assert dealt_at.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC" in steps[str(card["position"])]
    times = [card["dealt_at"] for card in sorted(round_.cards, key=lambda c: c["position"])]
    assert times == sorted(times)

    # Who paused and resumed it, and why.
    actions = rows(page, "action")
    assert "Table paused" in actions["table.pause"]
    assert "olga" in actions["table.pause"]
    assert "Card scanner check" in actions["table.pause"]
    assert "Table resumed" in actions["table.resume"]
    assert f"os user {getpass.getuser()} (command table_resume)" in actions["table.resume"]
    assert "Scanner replaced" in actions["table.resume"]

    # Every bet with its terms (type, mode, amount, the odds from the round's own paytable) and outcome.
    paytable = Paytable.from_dict(round_.terms["paytable"])
    bets = rows(page, "bet")
    assert len(bets) == round_.bets.count() == 3
    for bet in round_.bets.all():
        text = bets[str(bet.pk)]
        expected = [
            bet.type,
            bet.get_mode_display(),
            f"{bet.amount}",
            payout_label(bet.type, paytable, bet.mode),
            bet.get_status_display(),
            f"{bet.payout}",
        ]
        for piece in expected:
            assert piece in text, (piece, text)


def test_a_cancelled_rounds_page_says_who_cancelled_it_and_why(client, operator, auditor_page):
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("banker", "10.00"))
    as_operator(client, operator, f"/admin/tables/table/{table.pk}/cancel-round/", "Dealer error")
    round_.refresh_from_db()
    assert round_.state == "cancelled"
    page = auditor_page(round_)
    action = rows(page, "action")["round.cancel"]
    assert "Round cancelled and refunded" in action
    assert "olga" in action
    assert "Dealer error" in action
    [bet] = rows(page, "bet").values()
    assert "Refunded" in bet
    assert "No card dealt." in page


def test_a_fault_that_paused_a_round_is_shown_as_the_system_with_its_cause(auditor_page):
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    drive(table, clock, lambda: len(latest_round(table).cards) >= 1)
    controls.table_pause(table_id=table.pk, reason="fault: ShoeFault: card unreadable", fault=True)
    round_.refresh_from_db()
    assert round_.state == "paused"
    action = rows(auditor_page(round_), "action")["table.pause"]
    assert "system (fault)" in action
    assert "card unreadable" in action


def test_a_round_no_one_touched_says_so(auditor_page):
    table = fast_table()
    round_ = drive_to_state(table, Clock(), "settled")
    page = auditor_page(round_)
    assert "No operator action or fault touched this round." in page
    assert all("UTC" in step for step in rows(page, "position").values())
