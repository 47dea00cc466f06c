"""Responsible-gaming limits (baccarat_site.accounts.limits) through GET/PUT /api/account/limits/, the bets API
and the refill API: stricter at once, looser after 24 hours, rolling periods, refusals that change nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from baccarat_site.accounts.models import PlayLimit
from baccarat_site.accounts.services import sign_in_record
from tables.models import Bet
from tables.services.controls import round_cancel
from tables.services.settlement import round_settle
from tests.factories import make_round, make_table
from tests.tables.apis.test_api_bets import bets, post, snapshot
from wallets import services as wallet_services
from wallets.models import Wallet

LIMITS = "/api/account/limits/"


def put(client, body):
    return client.put(LIMITS, data=body, format="json")


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_a_new_player_has_no_limits_and_every_field_is_listed(player, client_for):
    body = client_for(player("alice")).get(LIMITS).json()
    assert body == {
        "deposit_day": None,
        "deposit_week": None,
        "deposit_month": None,
        "loss_day": None,
        "loss_week": None,
        "loss_month": None,
        "wager_day": None,
        "wager_week": None,
        "wager_month": None,
        "session_minutes": None,
        "reality_check_minutes": None,
        "pending": [],
        "usage": {},
    }


def test_the_limits_need_a_signed_in_player(client_for):
    assert client_for(None).get(LIMITS).status_code == 401


def test_adding_and_lowering_a_limit_apply_at_once_and_raising_waits_24_hours(player, client_for, clock):
    alice = player("alice")
    client = client_for(alice)
    added = put(client, {"wager_day": "100.00", "reality_check_minutes": 30, "session_minutes": 120})
    assert added.status_code == 200, added.json()
    assert (added.json()["wager_day"], added.json()["reality_check_minutes"]) == ("100.00", 30)
    assert added.json()["session_minutes"] == 120
    assert added.json()["usage"]["wager_day"] == {"used": "0.00", "left": "100.00", "resets_at": None}

    lowered = put(client, {"wager_day": "50"}).json()
    assert (lowered["wager_day"], lowered["pending"]) == ("50.00", [])

    raised = put(client, {"wager_day": "80.00", "reality_check_minutes": None}).json()
    assert (raised["wager_day"], raised["reality_check_minutes"]) == ("50.00", 30)
    pending = {p["limit"]: p for p in raised["pending"]}
    assert pending["wager_day"]["value"] == "80.00"
    assert pending["reality_check_minutes"]["value"] is None
    applies_at = parse_time(pending["wager_day"]["applies_at"])
    assert abs(applies_at - (timezone.now() + timedelta(hours=24))) < timedelta(seconds=5)
    assert pending["wager_day"]["applies_at"].endswith("Z")
    assert len(pending["wager_day"]["applies_at"]) == 24  # 2026-01-02T03:04:05.678Z

    clock.move(hours=23, minutes=59)
    assert client.get(LIMITS).json()["wager_day"] == "50.00"
    clock.move(minutes=2)
    later = client.get(LIMITS).json()
    assert (later["wager_day"], later["reality_check_minutes"], later["pending"]) == ("80.00", None, [])
    assert PlayLimit.objects.filter(user=alice, kind="wager_day").count() == 3  # the history is kept


def test_lowering_while_a_raise_is_pending_cancels_the_raise(player, client_for, clock):
    client = client_for(player("alice"))
    put(client, {"loss_week": "100.00"})
    put(client, {"loss_week": "500.00"})
    body = put(client, {"loss_week": "60.00"}).json()
    assert (body["loss_week"], body["pending"]) == ("60.00", [])
    clock.move(hours=25)
    assert client.get(LIMITS).json()["loss_week"] == "60.00"


def test_removing_a_limit_is_pending_for_24_hours(player, client_for, clock):
    client = client_for(player("alice"))
    put(client, {"deposit_month": "300.00"})
    body = put(client, {"deposit_month": None}).json()
    assert body["deposit_month"] == "300.00"
    assert [(p["limit"], p["value"]) for p in body["pending"]] == [("deposit_month", None)]
    clock.move(hours=24, seconds=1)
    assert client.get(LIMITS).json()["deposit_month"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"wager_day": "-1.00"}, "wager_day"),
        ({"wager_day": "0"}, "wager_day"),
        ({"loss_week": 100}, "loss_week"),
        ({"deposit_day": "1e3"}, "deposit_day"),
        ({"deposit_day": "12.345"}, "deposit_day"),
        ({"session_minutes": 5}, "session_minutes"),
        ({"session_minutes": "soon"}, "session_minutes"),
        ({"session_minutes": True}, "session_minutes"),
        # str.isdigit() says yes to these; int() then failed (a 500) or read "١٢٠" as 120.
        ({"session_minutes": "²"}, "session_minutes"),
        ({"session_minutes": "①"}, "session_minutes"),
        ({"session_minutes": "١٢٠"}, "session_minutes"),
        ({"session_minutes": "9" * 5000}, "session_minutes"),
        ({"reality_check_minutes": "³0"}, "reality_check_minutes"),
        ({"session_minutes": 10**40}, "session_minutes"),
        ({"reality_check_minutes": 20}, "reality_check_minutes"),
        ({"reality_check_minutes": ""}, "reality_check_minutes"),
        ({"loss_day": ""}, "loss_day"),
        ({"bogus_limit": "1.00"}, "bogus_limit"),
        ({"wager_day": "10.00", "loss_day": "x"}, "loss_day"),
    ],
)
def test_a_bad_value_gets_400_and_changes_nothing(player, client_for, body, field):
    client = client_for(player("alice"))
    response = put(client, body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_limit"
    assert field in response.json()["detail"]
    assert not PlayLimit.objects.exists()


def test_a_body_that_is_not_an_object_gets_400(player, client_for):
    client = client_for(player("alice"))
    assert client.put(LIMITS, data="[1]", content_type="application/json").json()["code"] == "invalid_limit"
    assert client.put(LIMITS, data="{", content_type="application/json").json()["code"] == "malformed_json"


def test_a_form_body_gets_415_and_changes_nothing(player, client_for):
    """A form cannot send null and repeats a field as a list (schema fuzzing once got a 200 for
    ``reality_check_minutes=`` read as "none"): the endpoint takes JSON only."""
    client = client_for(player("alice"))
    response = client.put(
        LIMITS, data="reality_check_minutes=&reality_check_minutes=L", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"
    assert not PlayLimit.objects.exists()


@pytest.mark.parametrize("kind", ["wager_day", "wager_week", "wager_month", "loss_day", "loss_week", "loss_month"])
def test_a_bet_up_to_the_limit_passes_and_one_cent_past_it_is_refused_whole(player, betting_round, client_for, kind):
    alice = player("alice", "100.00")
    client = client_for(alice)
    put(client, {kind: "20.00"})
    assert post(client, betting_round.pk, bets(("player", "10.00")), key="a").status_code == 201
    before = snapshot()
    refused = post(client, betting_round.pk, bets(("banker", "5.00"), ("tie", "5.01")), key="b")
    assert refused.status_code == 403
    body = refused.json()
    assert body["code"] == "limit_reached"
    assert body["limit"] == "20.00"
    assert "10.00 is left" in body["detail"]
    assert {"day": "24-hour", "week": "7-day", "month": "30-day"}[kind.split("_")[1]] in body["detail"]
    assert ("wager" if kind.startswith("wager") else "loss") in body["detail"]
    assert " UTC" in body["detail"]  # when more is left
    assert snapshot() == before
    assert post(client, betting_round.pk, bets(("banker", "5.00"), ("tie", "5.00")), key="c").status_code == 201
    usage = client.get(LIMITS).json()["usage"][kind]
    assert (usage["used"], usage["left"]) == ("20.00", "0.00")


def test_a_refunded_stake_counts_neither_as_wagered_nor_lost(player, betting_round, client_for):
    alice = player("alice", "100.00")
    client = client_for(alice)
    put(client, {"wager_day": "20.00", "loss_day": "20.00"})
    assert post(client, betting_round.pk, bets(("player", "20.00")), key="a").status_code == 201
    round_cancel(round_id=betting_round.pk, reason="test")
    assert Wallet.objects.get(user=alice).balance == Decimal("100.00")
    usage = client.get(LIMITS).json()["usage"]
    assert usage["wager_day"]["used"] == usage["loss_day"]["used"] == "0.00"
    other = make_round(make_table("Another"), closes_in=60)
    assert post(client, other.pk, bets(("player", "20.00")), key="b").status_code == 201


def test_a_settled_bet_counts_stake_minus_what_it_returned(player, betting_round, client_for, deal):
    alice = player("alice", "100.00")
    client = client_for(alice)
    put(client, {"loss_day": "15.00", "wager_day": "100.00"})
    assert post(client, betting_round.pk, bets(("player", "10.00"), ("banker", "5.00")), key="a").status_code == 201
    deal(betting_round, "9H 2D KC 3S")  # a player natural 9 over banker 5: player wins 1:1
    round_settle(round_id=betting_round.pk)
    usage = client.get(LIMITS).json()["usage"]
    assert usage["wager_day"]["used"] == "15.00"
    assert usage["loss_day"]["used"] == "-5.00"  # 15 staked, 20 returned
    assert usage["loss_day"]["left"] == "20.00"
    other = make_round(make_table("Another"), closes_in=60)
    assert post(client, other.pk, bets(("player", "20.00")), key="b").status_code == 201
    assert post(client, other.pk, bets(("banker", "1.00")), key="c").json()["code"] == "limit_reached"


def test_stakes_older_than_the_rolling_period_no_longer_count(player, client_for, clock):
    alice = player("alice", "100.00")
    client = client_for(alice)
    put(client, {"wager_day": "10.00", "wager_week": "25.00"})
    first = make_round(make_table("One"), closes_in=60)
    assert post(client, first.pk, bets(("player", "10.00")), key="a").status_code == 201
    refused = post(client, first.pk, bets(("player", "1.00")), key="b").json()
    assert refused["code"] == "limit_reached"
    placed_at = Bet.objects.get(user=alice).placed_at
    resets = (placed_at + timedelta(hours=24)).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    assert resets in refused["detail"]

    clock.move(hours=24, seconds=1)
    second = make_round(make_table("Two"), closes_in=60)
    assert post(client, second.pk, bets(("player", "10.00")), key="c").status_code == 201
    clock.move(hours=24, seconds=1)
    third = make_round(make_table("Three"), closes_in=60)
    week = post(client, third.pk, bets(("player", "6.00")), key="d").json()
    assert (week["code"], week["limit"]) == ("limit_reached", "25.00")
    assert "7-day" in week["detail"]
    assert "5.00 is left" in week["detail"]
    assert post(client, third.pk, bets(("player", "5.00")), key="e").status_code == 201


def test_a_player_without_limits_bets_as_before(player, betting_round, client_for):
    client = client_for(player("alice", "100.00"))
    assert post(client, betting_round.pk, bets(("player", "100.00")), key="a").status_code == 201


def fresh_round():
    """A round open for a minute from (fake) now, on a table of its own."""
    fresh_round.count = getattr(fresh_round, "count", 0) + 1
    return make_round(make_table(f"Table {fresh_round.count}"), closes_in=60)


def test_the_session_limit_stops_bets_until_a_sign_in_after_the_break(player, client_for, clock):
    alice = player("alice", "100.00")
    client = client_for(alice)
    put(client, {"session_minutes": 60})
    no_session = post(client, fresh_round().pk, bets(("player", "1.00")), key="a").json()
    assert no_session["code"] == "session_limit_reached"

    sign_in_record(user=alice, request=None)
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="b").status_code == 201
    clock.move(minutes=60)
    over = post(client, fresh_round().pk, bets(("player", "1.00")), key="c")
    assert (over.status_code, over.json()["code"]) == (403, "session_limit_reached")
    assert "60 minutes" in over.json()["detail"]

    clock.move(minutes=10)
    sign_in_record(user=alice, request=None)  # within the break: no new session
    again = post(client, fresh_round().pk, bets(("player", "1.00")), key="d").json()
    assert again["code"] == "session_limit_reached"
    clock.move(minutes=21)
    sign_in_record(user=alice, request=None)  # 91 minutes after the session began: a new one
    assert post(client, fresh_round().pk, bets(("player", "1.00")), key="e").status_code == 201


def spend_all(user) -> None:
    wallet_services.wallet_withdraw(user=user, amount=Wallet.objects.get(user=user).balance, reason="lost")


@pytest.mark.parametrize("kind", ["deposit_day", "deposit_week", "deposit_month"])
def test_a_refill_past_the_deposit_limit_is_refused_and_one_at_the_line_passes(player, client_for, clock, kind):
    alice = player("alice", "1.00")
    spend_all(alice)
    client = client_for(alice)
    put(client, {kind: "999.99"})
    refused = client.post("/api/wallet/refill/")
    assert refused.status_code == 403
    assert (refused.json()["code"], refused.json()["limit"]) == ("limit_reached", "999.99")
    assert "deposit" in refused.json()["detail"]
    assert Wallet.objects.get(user=alice).balance == 0
    put(client, {kind: "1000.00"})  # a raise: pending for 24 hours
    assert client.post("/api/wallet/refill/").json()["code"] == "limit_reached"

    clock.move(hours=24, seconds=1)
    assert client.get(LIMITS).json()[kind] == "1000.00"
    ok = client.post("/api/wallet/refill/")
    assert ok.status_code == 200, ok.json()
    assert client.get(LIMITS).json()["usage"][kind] == {
        "used": "1000.00",
        "left": "0.00",
        "resets_at": client.get(LIMITS).json()["usage"][kind]["resets_at"],
    }


def test_the_openapi_schema_describes_the_limits_endpoint():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = schema["paths"]["/api/account/limits/"]
    assert set(operations) == {"get", "put"}
    output = schema["components"]["schemas"]["LimitsOutput"]["properties"]
    assert {"wager_day", "session_minutes", "pending", "usage"} <= set(output)


def test_every_change_is_audited_with_the_player_as_actor(player, client_for):
    alice = player("alice")
    put(client_for(alice), {"loss_day": "40.00"})
    put(client_for(alice), {"loss_day": "40.00"})  # the same again: nothing changes, nothing is audited
    [entry] = [e for e in LogEntry.objects.all() if (e.additional_data or {}).get("action") == "player.limits"]
    assert entry.actor_id == alice.pk
