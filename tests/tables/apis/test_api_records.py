"""Reads over HTTP: the bet record, a round with the caller's bets, the wallet and ledger, tables, token, schema.

A player sees only their own bets and ledger, whatever ids they ask for."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tables import events
from tables.engine import new_shoe
from tables.models import Bet, Round, Shoe
from tables.services import settlement
from tests.factories import make_round, make_table, make_user, make_variant


@pytest.fixture
def played(player, place, deal, monkeypatch):
    """alice and bob bet on a settled round of table A and on a cancelled round of table B."""
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    alice, bob = player("alice", "1000.00"), player("bob", "1000.00")
    table_a, table_b = make_table("A"), make_table("B")
    settled = make_round(table_a)
    place(alice, settled, ("player", "10.00"), ("tie", "5.00"))
    place(bob, settled, ("banker", "20.00"))
    deal(settled, "9H 2D KC 3S")  # Player natural 9 beats 5
    settlement.round_settle(round_id=settled.pk)
    cancelled = make_round(table_b)
    place(alice, cancelled, ("banker", "7.00"))
    place(bob, cancelled, ("banker", "8.00"))
    settlement.round_refund(round_id=cancelled.pk, reason="fault")
    return {"alice": alice, "bob": bob, "settled": settled, "cancelled": cancelled, "a": table_a, "b": table_b}


def results(response) -> list[tuple[str, str, str]]:
    assert response.status_code == 200, response.json()
    return [(b["type"], b["status"], b["payout"]) for b in response.json()["results"]]


def test_the_bet_record_lists_only_the_callers_bets_newest_first_with_outcomes(played, client_for):
    response = client_for(played["alice"]).get("/api/bets/")
    assert results(response) == [("banker", "refunded", "7.00"), ("tie", "lost", "0.00"), ("player", "won", "20.00")]
    first = response.json()["results"][0]
    assert first["table"] == played["b"].pk
    assert first["table_name"] == "B"
    assert first["round"] == played["cancelled"].pk
    assert first["round_number"] == 1
    assert first["mode"] == "traditional"
    assert first["amount"] == "7.00"
    assert first["placed_at"].endswith("Z")
    assert len(first["placed_at"]) == len("2026-01-01T00:00:00.000Z")
    assert response.json()["count"] == 3


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("result=won", [("player", "won", "20.00")]),
        ("result=refunded", [("banker", "refunded", "7.00")]),
        ("type=tie", [("tie", "lost", "0.00")]),
        ("table={a}", [("tie", "lost", "0.00"), ("player", "won", "20.00")]),
        ("result=open", []),
    ],
)
def test_the_bet_record_filters_by_table_type_and_result(played, client_for, query, expected):
    query = query.format(a=played["a"].pk)
    assert results(client_for(played["alice"]).get(f"/api/bets/?{query}")) == expected


def test_the_bet_record_filters_by_dates_and_datetimes(played, client_for):
    client = client_for(played["alice"])
    today = timezone.now().date()
    assert len(results(client.get(f"/api/bets/?from={today}&to={today}"))) == 3
    assert results(client.get(f"/api/bets/?to={today - timedelta(days=1)}")) == []
    assert results(client.get(f"/api/bets/?from={today + timedelta(days=1)}")) == []
    Bet.objects.filter(type="tie").update(placed_at=timezone.now() - timedelta(days=3))
    moment = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert [r[0] for r in results(client.get(f"/api/bets/?to={moment}"))] == ["tie"]
    assert [r[0] for r in results(client.get(f"/api/bets/?from={moment}"))] == ["banker", "player"]


@pytest.mark.parametrize(
    "query",
    ["from=yesterday", "to=2026-13-45", "table=abc", "type=dragon", "result=maybe", "table=99999999999999999999"],
)
def test_a_bad_filter_is_400_invalid_request(played, client_for, query):
    response = client_for(played["alice"]).get(f"/api/bets/?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


def test_the_bet_record_is_paginated(player, betting_round, place, client_for):
    alice = player("alice", "1000.00")
    for _ in range(5):
        place(alice, betting_round, ("player", "1.00"))
    client = client_for(alice)
    page = client.get("/api/bets/?page_size=2").json()
    assert (page["count"], len(page["results"]), page["previous"]) == (5, 2, None)
    assert "page=2" in page["next"]
    last = client.get("/api/bets/?page_size=2&page=3").json()
    assert (len(last["results"]), last["next"]) == (1, None)
    assert client.get("/api/bets/?page=9").status_code == 404


def test_a_round_shows_its_result_and_only_the_callers_bets(played, client_for):
    settled = played["settled"]
    body = client_for(played["bob"]).get(f"/api/rounds/{settled.pk}/").json()
    assert body["id"] == settled.pk
    assert body["state"] == "settled"
    assert (body["player_total"], body["banker_total"], body["winner"]) == (9, 5, "player")
    assert [c["card"] for c in body["cards"]] == ["9H", "2D", "KC", "3S"]
    assert body["flags"]["player_natural"] is True
    assert [(b["type"], b["status"], b["payout"]) for b in body["bets"]] == [("banker", "lost", "0.00")]
    assert body["settled_at"].endswith("Z")

    alice_view = client_for(played["alice"]).get(f"/api/rounds/{settled.pk}/").json()
    assert sorted(b["type"] for b in alice_view["bets"]) == ["player", "tie"]
    assert client_for(None).get(f"/api/rounds/{settled.pk}/").json()["bets"] == []


def test_a_cancelled_round_shows_a_public_reason_never_the_internal_one_and_refunds(played, client_for):
    body = client_for(played["bob"]).get(f"/api/rounds/{played['cancelled'].pk}/").json()
    assert (
        Round.objects.get(pk=played["cancelled"].pk).reason == "fault"
    )  # kept on the round, for the admin and the audit trail
    assert (body["state"], body["reason"]) == ("cancelled", "The round was cancelled and every bet on it refunded.")
    assert [(b["status"], b["payout"]) for b in body["bets"]] == [("refunded", "8.00")]


def test_a_round_still_open_for_bets_shows_no_cards_and_no_one_elses_bets(player, betting_round, place, client_for):
    alice, bob = player("alice"), player("bob")
    place(alice, betting_round, ("player", "10.00"))
    body = client_for(bob).get(f"/api/rounds/{betting_round.pk}/").json()
    assert (body["state"], body["cards"], body["winner"], body["bets"]) == ("betting", [], None, [])


def test_an_unknown_round_is_404(client_for, db):
    for round_id in (424242, 10**30):
        response = client_for(None).get(f"/api/rounds/{round_id}/")
        assert (response.status_code, response.json()["code"]) == (404, "round_not_found")


def test_the_wallet_and_ledger_are_the_callers_own(played, client_for):
    alice = client_for(played["alice"])
    assert alice.get("/api/wallet/").json() == {"balance": "1005.00", "currency": "CHIPS"}
    ledger = alice.get("/api/wallet/ledger/").json()
    kinds = [(e["kind"], e["amount"], e["balance_after"]) for e in ledger["results"]]
    assert kinds == [
        ("refund", "7.00", "1005.00"),
        ("stake", "-7.00", "998.00"),
        ("payout", "20.00", "1005.00"),
        ("stake", "-15.00", "985.00"),
        ("deposit", "1000.00", "1000.00"),
    ]
    assert ledger["results"][0]["reference"] == f"round:{played['cancelled'].pk}"
    assert ledger["results"][0]["created_at"].endswith("Z")
    bob_ledger = client_for(played["bob"]).get("/api/wallet/ledger/").json()
    assert {e["id"] for e in bob_ledger["results"]}.isdisjoint({e["id"] for e in ledger["results"]})


def test_a_new_player_without_bets_has_an_empty_record_and_wallet(client_for, db):
    newbie = client_for(make_user("newbie"))
    assert newbie.get("/api/bets/").json()["results"] == []
    assert newbie.get("/api/wallet/").json()["balance"] == "0.00"
    assert newbie.get("/api/wallet/ledger/").json()["results"] == []


@pytest.mark.parametrize("path", ["/api/bets/", "/api/wallet/", "/api/wallet/ledger/"])
def test_personal_reads_need_a_signed_in_player(client_for, db, path):
    response = client_for(None).get(path)
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_a_token_comes_from_username_and_password_and_bad_ones_get_a_code(client_for, db):
    make_user("zoe", password="pass-word-123")
    anonymous = client_for(None)
    good = anonymous.post("/api/auth/token/", {"username": "zoe", "password": "pass-word-123"}, format="json")
    assert good.status_code == 200
    assert good.json()["token"]
    bad = anonymous.post("/api/auth/token/", {"username": "zoe", "password": "wrong"}, format="json")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_credentials"
    assert set(bad.json()) == {"code", "detail"}
    broken = anonymous.post("/api/auth/token/", "{", content_type="application/json")
    assert (broken.status_code, broken.json()["code"]) == (400, "malformed_json")
    with_token = anonymous
    with_token.credentials(HTTP_AUTHORIZATION=f"Token {good.json()['token']}")
    assert with_token.get("/api/wallet/").status_code == 200


def test_tables_are_listed_and_detailed_in_the_api_shape(client_for, betting_round):
    client = client_for(None)
    tables = client.get("/api/tables/").json()
    row = next(t for t in tables if t["id"] == betting_round.table_id)
    assert {
        "id",
        "name",
        "variant",
        "status",
        "decks",
        "betting_seconds",
        "limits",
        "pb_difference_limit",
        "round",
    } <= set(row)
    assert row["round"]["id"] == betting_round.pk
    assert row["limits"]["player"] == {"min": "1.00", "max": "5000.00"}
    detail = client.get(f"/api/tables/{betting_round.table_id}/").json()
    assert {"current_round", "shoe", "roads"} <= set(detail)
    assert client.get("/api/tables/987654/").status_code == 404


def test_the_openapi_schema_and_its_interactive_page_are_served(client_for, db):
    client = client_for(None)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in ("/api/rounds/{round_id}/bets/", "/api/bets/", "/api/wallet/", "/api/wallet/ledger/", "/api/tables/"):
        assert path in paths
    assert client.get("/api/docs/").status_code == 200


def test_round_state_values_match_the_api_contract():
    assert set(Round.State.values) == {"betting", "closed", "dealing", "result", "settled", "paused", "cancelled"}


def test_a_table_dealing_a_one_deck_shoe_lists_no_perfect_pair_whatever_its_variant_says(client_for, db):
    """The table's limits are what its next round opens with: the bets its current shoe's decks can pay. An
    eight-deck variant offers Perfect Pair; the one-deck shoe still being dealt cannot pay it."""
    table = make_table("Switched", make_variant("Eight decks"))
    state = new_shoe(1, seed_hex="00" * 32).to_dict()  # a one-deck shoe, dealt before the switch
    Shoe.objects.create(table=table, number=1, state=state, server_seed="00" * 32, commitment="0" * 64)
    client = client_for(None)
    row = next(t for t in client.get("/api/tables/").json() if t["id"] == table.pk)
    assert row["decks"] == 1
    assert "perfect_pair" not in row["limits"]
    assert "player_pair" in row["limits"]
    detail = client.get(f"/api/tables/{table.pk}/").json()
    assert "perfect_pair" not in detail["limits"]
