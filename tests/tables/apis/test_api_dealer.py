"""REST under /api/dealer/: the console's state, scans, burn, cut card, shift and the supervisor's steps. Every
refusal is a 4xx {code, detail} and deals nothing."""

from __future__ import annotations

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
    answer = client.post(base(live) + "cards/", {"card": "9h"}, format="json")
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
    refused = client.post(base(live) + "cards/", {"card": "AS"}, format="json")
    assert refused.status_code == 409
    assert refused.json()["code"] == "betting_open"


@pytest.mark.parametrize(
    ("body", "code"),
    [({"card": "ZZ"}, "rescan"), ({"card": ""}, "rescan"), ({"card": "A" * 40}, "rescan"), ({}, "rescan")],
)
def test_an_unreadable_scan_is_refused_with_rescan(client_for, dealer, live, body, code):
    answer = client_for(dealer).post(base(live) + "cards/", body, format="json")
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
    answer = client.post(base(live) + "cards/", {"card": "AS"}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (403, "not_on_shift")
    assert client.post(base(live) + "shift/").json()["table"]["dealer"] == {"name": "otto"}
    assert client.post(base(live) + "cards/", {"card": "AS"}, format="json").status_code == 200


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
    answer = client_for(dealer).post(f"/api/dealer/tables/{table.pk}/cards/", {"card": "AS"}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (409, "not_live")
