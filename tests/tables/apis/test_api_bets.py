"""POST /api/rounds/{id}/bets/: confirm bets over HTTP; every refusal is a 4xx {code, detail} that changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
import redis
from django.utils import timezone

from tables.models import Bet, BetPlacement, Round
from tables.services import rate
from tables.services.placement import bet_place
from tests.factories import make_round, make_table, make_variant
from wallets.models import LedgerEntry, Wallet


def url(round_id: int) -> str:
    return f"/api/rounds/{round_id}/bets/"


def post(client, round_id: int, body, key: str | None = "key-1", raw: bool = False):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    if raw:
        return client.post(url(round_id), data=body, content_type="application/json", **headers)
    return client.post(url(round_id), data=body, format="json", **headers)


def snapshot() -> tuple:
    return (
        tuple(Wallet.objects.order_by("id").values_list("id", "balance")),
        LedgerEntry.objects.count(),
        Bet.objects.count(),
        BetPlacement.objects.count(),
    )


def test_confirming_bets_answers_201_with_the_bets_and_the_new_balance(player, betting_round, client_for):
    alice = player("alice", "100.00")
    response = post(
        client_for(alice),
        betting_round.pk,
        {"mode": "no_commission", "bets": [{"type": "banker", "amount": "10.00"}, {"type": "tie", "amount": "1.5"}]},
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["balance"] == "88.50"
    assert [{k: b[k] for k in ("type", "amount", "mode", "status")} for b in body["bets"]] == [
        {"type": "banker", "amount": "10.00", "mode": "no_commission", "status": "open"},
        {"type": "tie", "amount": "1.50", "mode": "no_commission", "status": "open"},
    ]
    assert all(isinstance(b["id"], int) for b in body["bets"])


def test_a_replayed_request_gets_the_first_answer_and_a_changed_one_gets_409(player, betting_round, client_for):
    alice = player("alice", "100.00")
    client = client_for(alice)
    body = {"mode": "traditional", "bets": [{"type": "player", "amount": "10.00"}]}
    first = post(client, betting_round.pk, body, key="4b1c2e9e-0000-4000-8000-000000000001")
    again = post(client, betting_round.pk, body, key="4b1c2e9e-0000-4000-8000-000000000001")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    before = snapshot()

    changed = {"mode": "traditional", "bets": [{"type": "player", "amount": "20.00"}]}
    conflict = post(client, betting_round.pk, changed, key="4b1c2e9e-0000-4000-8000-000000000001")
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "idempotency_conflict"
    assert snapshot() == before
    assert Wallet.objects.get(user=alice).balance == Decimal("90.00")


GOOD = {"mode": "traditional", "bets": [{"type": "player", "amount": "10.00"}]}


def bets(*pairs) -> dict:
    return {"mode": "traditional", "bets": [{"type": t, "amount": a} for t, a in pairs]}


@pytest.mark.parametrize(
    ("case", "body", "status", "code"),
    [
        ("unknown bet type", bets(("dragon", "1.00")), 400, "unknown_bet_type"),
        ("zero", bets(("player", "0")), 400, "invalid_amount"),
        ("negative", bets(("player", "-1.00")), 400, "invalid_amount"),
        ("three decimals", bets(("player", "1.005")), 400, "invalid_amount"),
        ("NaN string", bets(("player", "NaN")), 400, "invalid_amount"),
        ("Infinity string", bets(("player", "Infinity")), 400, "invalid_amount"),
        ("exponent string", bets(("player", "1e309")), 400, "invalid_amount"),
        ("twenty digits", bets(("player", "12345678901234567890")), 400, "invalid_amount"),
        ("a JSON number", {"mode": "traditional", "bets": [{"type": "player", "amount": 10}]}, 400, "invalid_amount"),
        ("a JSON float", {"mode": "traditional", "bets": [{"type": "player", "amount": 10.5}]}, 400, "invalid_amount"),
        ("below the minimum", bets(("player", "0.50")), 400, "below_min"),
        ("above the maximum", bets(("tie", "5000.01")), 400, "above_max"),
        ("past the column", bets(("tie", "9999999999.99")), 400, "above_max"),
        ("wider than the P/B limit", bets(("banker", "600.00")), 400, "pb_difference_limit"),
        ("more than the wallet", bets(("player", "400.00"), ("banker", "600.01")), 400, "insufficient_funds"),
        ("an unknown mode", {"mode": "turbo", "bets": [{"type": "player", "amount": "1.00"}]}, 400, "invalid_mode"),
        ("a number for mode", {"mode": 7, "bets": [{"type": "player", "amount": "1.00"}]}, 400, "invalid_mode"),
        ("no mode", {"bets": [{"type": "player", "amount": "1.00"}]}, 400, "invalid_request"),
        ("bets not a list", {"mode": "traditional", "bets": "player"}, 400, "invalid_request"),
        ("no bets", {"mode": "traditional", "bets": []}, 400, "invalid_request"),
        ("a bet without amount", {"mode": "traditional", "bets": [{"type": "player"}]}, 400, "invalid_request"),
        ("a body that is a list", [GOOD], 400, "invalid_request"),
    ],
)
def test_a_refused_batch_answers_its_code_and_changes_nothing(player, client_for, case, body, status, code):
    table = make_table("Limits", variant=make_variant("PB 500", pb_difference_limit=Decimal("500.00")))
    round_ = make_round(table)
    alice = player("alice", "1000.00")
    before = snapshot()
    response = post(client_for(alice), round_.pk, body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert response.json()["detail"]
    assert {"code", "detail"} <= set(response.json()) <= {"code", "detail", "bet_type", "limit"}
    if code in {"invalid_amount", "below_min", "above_max", "pb_difference_limit"} and case != "a body that is a list":
        # The refusal names the bet it is about, so the table page can show it next to that spot.
        assert response.json()["bet_type"] in {"player", "banker", "tie"}
    assert snapshot() == before


@pytest.mark.parametrize(
    ("amounts", "code", "bet_type", "limit"),
    [
        ((("player", "0.50"),), "below_min", "player", "1.00"),
        ((("tie", "5000.01"),), "above_max", "tie", "5000.00"),
        ((("banker", "600.00"),), "pb_difference_limit", "banker", "500.00"),
    ],
)
def test_a_limit_refusal_says_which_bet_and_which_limit(player, client_for, amounts, code, bet_type, limit):
    table = make_table("Limits", variant=make_variant("PB 500", pb_difference_limit=Decimal("500.00")))
    round_ = make_round(table)
    alice = player("alice", "10000.00")
    response = post(client_for(alice), round_.pk, bets(*amounts))
    assert response.status_code == 400
    assert response.json() | {"detail": ""} == {"code": code, "detail": "", "bet_type": bet_type, "limit": limit}


@pytest.mark.parametrize(
    "raw",
    [
        '{"mode": "traditional", "bets": [',
        "not json",
        '{"mode": "traditional", "bets": [{"type": "player", "amount": NaN}]}',
    ],
)
def test_malformed_json_is_refused_with_malformed_json(player, betting_round, client_for, raw):
    alice = player("alice", "100.00")
    before = snapshot()
    response = post(client_for(alice), betting_round.pk, raw, raw=True)
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_json"
    assert snapshot() == before


def test_a_json_number_too_large_for_a_float_is_an_invalid_amount(player, betting_round, client_for):
    alice = player("alice", "100.00")
    raw = '{"mode": "traditional", "bets": [{"type": "player", "amount": 1e309}]}'
    response = post(client_for(alice), betting_round.pk, raw, raw=True)
    assert (response.status_code, response.json()["code"]) == (400, "invalid_amount")


def test_a_closed_round_refuses_bets(player, client_for):
    alice = player("alice", "100.00")
    round_ = make_round(make_table("T"), state=Round.State.CLOSED)
    before = snapshot()
    response = post(client_for(alice), round_.pk, GOOD)
    assert (response.status_code, response.json()["code"]) == (400, "betting_closed")
    late = make_round(make_table("U"))
    Round.objects.filter(pk=late.pk).update(closes_at=timezone.now() - timedelta(milliseconds=1))
    response = post(client_for(alice), late.pk, GOOD)
    assert (response.status_code, response.json()["code"]) == (400, "betting_closed")
    assert snapshot() == before


def test_a_side_bet_past_its_shoe_round_limit_is_unavailable(player, client_for):
    alice = player("alice", "100.00")
    round_ = make_round(make_table("T"), number=61)
    response = post(client_for(alice), round_.pk, bets(("player_pair", "1.00")))
    assert (response.status_code, response.json()["code"]) == (400, "bet_unavailable")


@pytest.mark.parametrize("round_id", [999999, 2**63 - 1, 10**30])
def test_an_unknown_round_is_404_round_not_found(player, client_for, round_id):
    alice = player("alice", "100.00")
    response = post(client_for(alice), round_id, GOOD)
    assert (response.status_code, response.json()["code"]) == (404, "round_not_found")


def test_without_credentials_a_confirm_is_401_and_changes_nothing(player, betting_round, client_for):
    player("alice", "100.00")
    before = snapshot()
    response = post(client_for(None), betting_round.pk, GOOD)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    bad_token = client_for(None)
    bad_token.credentials(HTTP_AUTHORIZATION="Token nope")
    response = post(bad_token, betting_round.pk, GOOD)
    assert (response.status_code, response.json()["code"]) == (401, "authentication_failed")
    assert snapshot() == before


def test_confirms_are_throttled_per_user_with_429(player, betting_round, client_for, settings):
    rates = dict(settings.REST_FRAMEWORK)
    rates["DEFAULT_THROTTLE_RATES"] = {**rates["DEFAULT_THROTTLE_RATES"], "bet_place": "3/day"}
    settings.REST_FRAMEWORK = rates
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    client = client_for(alice)
    codes = [post(client, betting_round.pk, bets(("player", "1.00")), key=f"k{i}").status_code for i in range(4)]
    assert codes == [201, 201, 201, 429]
    refused = post(client, betting_round.pk, bets(("player", "1.00")), key="k9")
    assert refused.json()["code"] == "throttled"
    assert Wallet.objects.get(user=alice).balance == Decimal("97.00")
    assert post(client_for(bob), betting_round.pk, GOOD).status_code == 201  # per user


def test_the_websocket_and_rest_share_one_service_with_the_same_answers(player, betting_round, client_for):
    """A request body as JSON text and the parsed body give the same fingerprint (replay across transports)."""
    alice = player("alice", "100.00")
    first = post(client_for(alice), betting_round.pk, GOOD, key="cross").json()
    again = bet_place(
        user=alice,
        round_id=betting_round.pk,
        mode="traditional",
        bets=json.loads(json.dumps(GOOD["bets"])),
        idempotency_key="cross",
    )
    assert again.as_body() == first


def test_when_redis_fails_the_throttle_lets_the_confirm_through(player, betting_round, client_for, monkeypatch):
    def broken():
        raise redis.ConnectionError("down")

    monkeypatch.setattr(rate, "redis_client", broken)
    alice = player("alice", "100.00")
    assert post(client_for(alice), betting_round.pk, GOOD).status_code == 201


def test_a_deactivated_players_token_no_longer_places_bets(player, betting_round, client_for):
    alice = player("alice", "100.00")
    client = client_for(alice)
    alice.is_active = False
    alice.save()
    response = post(client, betting_round.pk, GOOD)
    assert (response.status_code, response.json()["code"]) == (401, "authentication_failed")
    assert Bet.objects.count() == 0


def test_a_confirm_without_an_idempotency_key_header_is_refused_with_400(player, betting_round, client_for):
    alice = player("alice", "100.00")
    before = snapshot()
    response = post(client_for(alice), betting_round.pk, GOOD, key=None)
    assert response.status_code == 400
    assert response.json()["code"] == "idempotency_key_required"
    assert "Idempotency-Key" in response.json()["detail"]
    assert snapshot() == before
