"""The reality check on the server (accounts.limits): once the player's interval has passed since the session's
start or their last answer, every bet is refused with 403 ``reality_check_due`` until they answer it with
POST /api/account/reality-check/; the next one is due an interval after the answer."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from baccarat_site.accounts.limits import play_limits_set
from baccarat_site.accounts.models import RealityCheckAnswer
from baccarat_site.accounts.services import sign_in_record
from tests.factories import make_round, make_table
from tests.tables.apis.test_api_bets import bets, post, snapshot

CHECK = "/api/account/reality-check/"


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def fresh_round():
    """A round open for a minute from (fake) now, on a table of its own."""
    fresh_round.count = getattr(fresh_round, "count", 0) + 1
    return make_round(make_table(f"Table {fresh_round.count}"), closes_in=60)


@pytest.fixture
def checked(player, client_for):
    """Alice, with a reality check every 15 minutes and a session begun now, and her API client."""
    alice = player("alice", "100.00")
    play_limits_set(user=alice, changes={"reality_check_minutes": 15})
    sign_in_record(user=alice, request=None)
    return alice, client_for(alice)


def test_a_bet_while_the_check_is_due_is_refused_until_it_is_answered(checked, clock):
    _alice, client = checked
    clock.move(minutes=14, seconds=59)
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="a").status_code == 201

    clock.move(seconds=1)
    round_ = fresh_round()
    before = snapshot()
    refused = post(client, round_.pk, bets(("player", "1.00")), key="b")
    assert refused.status_code == 403
    assert refused.json()["code"] == "reality_check_due"
    assert "15 minutes" in refused.json()["detail"]
    assert snapshot() == before
    assert client.get(CHECK).json()["due"] is True

    answered = client.post(CHECK)
    assert answered.status_code == 200
    body = answered.json()
    assert body["due"] is False
    assert body["every"] == 15
    assert parse_time(body["due_at"]) == parse_time(body["answered_at"]) + timedelta(minutes=15)
    assert post(client, round_.pk, bets(("player", "1.00")), key="b").status_code == 201

    clock.move(minutes=15)  # the next check, an interval after the answer
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="c").json()["code"] == "reality_check_due"


def test_a_new_sign_in_starts_the_count_again(checked, clock):
    alice, client = checked
    clock.move(minutes=20)
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="a").json()["code"] == "reality_check_due"
    sign_in_record(user=alice, request=None)
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="b").status_code == 201


def test_an_answer_before_the_check_is_due_is_refused_and_records_nothing(checked, clock):
    _alice, client = checked
    clock.move(minutes=10)
    early = client.post(CHECK)
    assert early.status_code == 409
    assert early.json()["code"] == "reality_check_not_due"
    assert "due_at" in early.json()
    assert not RealityCheckAnswer.objects.exists()
    clock.move(minutes=4, seconds=30)  # within a minute of it: the page's clock may run a little ahead
    assert client.post(CHECK).status_code == 200


def test_a_player_without_a_check_bets_and_has_nothing_to_answer(player, client_for, betting_round):
    client = client_for(player("bob", "100.00"))
    assert client.get(CHECK).json() == {
        "every": None,
        "session_started_at": None,
        "answered_at": None,
        "due_at": None,
        "due": False,
    }
    assert client.post(CHECK).json()["code"] == "reality_check_not_due"
    assert post(client, betting_round.pk, bets(("player", "1.00")), key="a").status_code == 201


def test_the_check_needs_a_signed_in_player(client_for):
    assert client_for(None).post(CHECK).status_code == 401


def test_the_check_costs_a_bet_the_same_queries_whether_or_not_the_player_has_one(player, client_for, checked):
    _alice, alice_client = checked
    bob_client = client_for(player("bob", "100.00"))
    counts = []
    for client in (bob_client, alice_client):
        round_ = fresh_round()
        assert post(client, round_.pk, bets(("tie", "1.00")), key="warm").status_code == 201  # its rows, warm
        with CaptureQueriesContext(connection) as queries:
            assert post(client, round_.pk, bets(("tie", "1.00")), key="counted").status_code == 201
        counts.append(len(queries))
    assert counts[0] == counts[1]
