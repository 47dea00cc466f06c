"""POST /api/auth/token/: a key for a username and password that expires, and is replaced once it has."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import make_round, make_table

PASSWORD = "right-password-42"


def issue(username: str = "alice", password: str = PASSWORD):
    return APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json")


def test_a_token_comes_with_its_expiry_and_asking_again_gives_the_same_key(player, settings):
    settings.API_TOKEN_TTL_SECONDS = 3600
    alice = player("alice", "50.00")
    alice.set_password(PASSWORD)
    alice.save()
    first = issue()
    assert first.status_code == 200, first.json()
    body = first.json()
    assert set(body) == {"token", "expires_at"}
    created = Token.objects.get(user=alice).created
    assert abs((timezone.datetime.fromisoformat(body["expires_at"]) - created) - timedelta(hours=1)) < timedelta(
        seconds=1
    )
    assert issue().json()["token"] == body["token"]


def test_an_expired_token_is_refused_everywhere_and_a_new_one_replaces_it(player, settings):
    settings.API_TOKEN_TTL_SECONDS = 3600
    alice = player("alice", "50.00")
    alice.set_password(PASSWORD)
    alice.save()
    old = issue().json()["token"]
    Token.objects.filter(key=old).update(created=timezone.now() - timedelta(hours=2))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    wallet = client.get("/api/wallet/")
    assert (wallet.status_code, wallet.json()["code"]) == (401, "authentication_failed")
    assert "expired" in wallet.json()["detail"]
    round_ = make_round(make_table("T"), closes_in=60)
    bet = client.post(
        f"/api/rounds/{round_.pk}/bets/",
        {"mode": "traditional", "bets": [{"type": "player", "amount": "1.00"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k",
    )
    assert (bet.status_code, bet.json()["code"]) == (401, "authentication_failed")

    new = issue().json()["token"]
    assert new != old
    assert not Token.objects.filter(key=old).exists()
    client.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert client.get("/api/wallet/").status_code == 200


def test_bad_bodies_get_clear_errors(player):
    for body in ({}, {"username": "alice"}, {"username": ["a"], "password": "x"}, {"username": "", "password": ""}):
        response = APIClient().post("/api/auth/token/", body, format="json")
        assert response.status_code == 400
        assert response.json()["code"] in {"invalid_request", "invalid_credentials"}
    malformed = APIClient().post("/api/auth/token/", "{nope", content_type="application/json")
    assert (malformed.status_code, malformed.json()["code"]) == (400, "malformed_json")
