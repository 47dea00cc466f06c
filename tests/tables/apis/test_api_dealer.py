"""REST under /api/dealer/: the console's state, scans, burn, cut card, shift and the supervisor's steps. Every
refusal is a 4xx {code, detail} and deals nothing."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from baccarat_site import roles
from tables.models import Round, Table
from tables.services import ticker
from tests.factories import make_staff, make_table, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer():
    return make_staff("dana", roles.DEALERS)


@pytest.fixture
def live(dealer) -> Table:
    table = make_table("Live API", dealing=Table.Dealing.LIVE, dealer=dealer, betting_seconds=5)
    assert ticker.table_step(table_id=table.pk) == "shuffled"
    return table


def base(table: Table) -> str:
    return f"/api/dealer/tables/{table.pk}/"


def cards_of(table: Table) -> list:
    round_ = Round.objects.filter(table=table).first()
    return round_.cards if round_ else []


def test_the_console_state_names_what_the_dealer_does_next(client_for, dealer, live):
    client = client_for(dealer)
    state = client.get(base(live)).json()
    assert state["shoe"]["waiting_for"] == "burn_card"
    answer = client.post(base(live) + "cards/", {"card": "9h"}, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
    assert answer.status_code == 200, answer.json()
    assert answer.json()["burn"] == {"card": "9H", "count": 9}
    assert client.get(base(live)).json()["shoe"]["waiting_for"] == "burn_confirm"
    assert client.post(base(live) + "burn/").json()["burned"] == 9
    assert ticker.table_step(table_id=live.pk) == "opened"
    state = client.get(base(live)).json()
    assert state["shoe"]["waiting_for"] is None
    assert state["shoe"]["cards_left"] == 8 * 52 - 10
    assert state["round"]["state"] == "betting"
    assert state["table"]["dealer"] == {"name": "dana"}
    refused = client.post(base(live) + "cards/", {"card": "AS"}, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
    assert refused.status_code == 409
    assert refused.json()["code"] == "betting_open"


@pytest.mark.parametrize(
    ("body", "code"),
    [({"card": "ZZ"}, "rescan"), ({"card": ""}, "rescan"), ({"card": "A" * 40}, "rescan"), ({}, "rescan")],
)
def test_an_unreadable_scan_is_refused_with_rescan(client_for, dealer, live, body, code):
    answer = client_for(dealer).post(base(live) + "cards/", body, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
    assert answer.status_code == 409
    assert answer.json()["code"] == code
    assert answer.json()["detail"]
    assert live.shoes.get().burn_card == ""


def test_who_may_not_use_the_console_gets_403_and_changes_nothing(client_for, live):
    player = make_user("pat")
    cashier = make_staff("carl", roles.CASHIERS)
    for who in (player, cashier):
        client = client_for(who)
        for path, body in (("", None), ("cards/", {"card": "AS"}), ("burn/", None), ("supervisor/", {})):
            answer = client.post(base(live) + path, body, format="json") if path else client.get(base(live))
            assert answer.status_code == 403, (who, path)
            assert answer.json()["code"] == "not_dealer"
    assert client_for(None).get(base(live)).status_code == 401
    assert live.shoes.get().burn_card == ""


def test_a_dealer_off_shift_must_take_it_first(client_for, live):
    other = make_staff("otto", roles.DEALERS)
    client = client_for(other)
    answer = client.post(base(live) + "cards/", {"card": "AS"}, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
    assert (answer.status_code, answer.json()["code"]) == (403, "not_on_shift")
    assert client.post(base(live) + "shift/").json()["table"]["dealer"] == {"name": "otto"}
    scanned = client.post(base(live) + "cards/", {"card": "AS"}, format="json", HTTP_IDEMPOTENCY_KEY="k-otto")
    assert scanned.status_code == 200


def test_resume_and_void_need_a_supervisor_and_a_reason(client_for, dealer, live):
    client = client_for(dealer)
    client.post(base(live) + "supervisor/", {"reason": "help"}, format="json")
    assert Table.objects.get(pk=live.pk).pause_notice == "supervisor"
    answer = client.post(base(live) + "resume/", {"reason": "go"}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (403, "not_supervisor")
    boss = client_for(make_staff("sam", roles.SUPERVISORS))
    assert boss.post(base(live) + "resume/", {}, format="json").status_code == 400
    assert boss.post(base(live) + "resume/", {"reason": "all good"}, format="json").json()["resumed"] is True
    assert Table.objects.get(pk=live.pk).status == Table.Status.OPEN


def test_a_server_shoe_table_is_not_a_console(client_for, dealer):
    table = make_table("Shoe table")
    answer = client_for(dealer).get(f"/api/dealer/tables/{table.pk}/")
    assert (answer.status_code, answer.json()["code"]) == (404, "table_not_found")
    answer = client_for(dealer).post(
        f"/api/dealer/tables/{table.pk}/cards/", {"card": "AS"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert (answer.status_code, answer.json()["code"]) == (409, "not_live")


def _dealing(client, live: Table) -> Round:
    client.post(base(live) + "cards/", {"card": "9H"}, format="json", HTTP_IDEMPOTENCY_KEY="burn")
    client.post(base(live) + "burn/")
    assert ticker.table_step(table_id=live.pk) == "opened"
    round_ = Round.objects.get(table=live)
    assert ticker.table_step(table_id=live.pk, now=round_.closes_at + timedelta(seconds=1)) == "closed"
    return round_


def test_a_scan_sent_twice_with_one_key_deals_one_card_and_answers_the_first_answer(client_for, dealer, live):
    client = client_for(dealer)
    round_ = _dealing(client, live)
    first = client.post(base(live) + "cards/", {"card": "4H"}, format="json", HTTP_IDEMPOTENCY_KEY="scan-1")
    again = client.post(base(live) + "cards/", {"card": "4H"}, format="json", HTTP_IDEMPOTENCY_KEY="scan-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert [c["card"] for c in cards_of(live)] == ["4H"]
    named = {"card": "4H", "round_id": round_.pk, "position": 1}
    assert client.post(base(live) + "cards/", named, format="json").json() == first.json()
    assert len(cards_of(live)) == 1


@pytest.mark.parametrize(
    ("body", "key"),
    [({"card": "4H"}, None), ({"card": "4H", "position": 1}, "k"), ({"card": "4H", "round_id": 1}, None)],
)
def test_a_scan_that_names_nothing_is_refused_and_deals_nothing(client_for, dealer, live, body, key):
    client = client_for(dealer)
    _dealing(client, live)
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    answer = client.post(base(live) + "cards/", body, format="json", **headers)
    assert answer.status_code == 400
    assert answer.json()["code"] == "scan_unnamed"
    assert cards_of(live) == []


def test_a_void_names_its_round(client_for, dealer, live):
    boss = client_for(make_staff("sam", roles.SUPERVISORS))
    _dealing(client_for(dealer), live)
    answer = boss.post(base(live) + "void/", {"reason": "misdeal"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_request"
    assert Round.objects.get(table=live).state == Round.State.CLOSED
