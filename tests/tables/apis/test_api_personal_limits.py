"""A player's personal maximum stake over REST: a batch past it is refused whole with ``above_max`` naming the
personal limit, and changes nothing; the table's detail shows it to the player (docs/rules.md "Personal limits")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from baccarat_site.accounts.services import player_limit_set
from tests.factories import make_round, make_table, make_user, make_variant
from tests.tables.apis.test_api_bets import bets, post, snapshot


@pytest.fixture
def restricted(player):
    """``restricted("alice", "100.00")`` → a player with 10,000.00 whose personal maximum is that amount."""

    def make(username: str = "alice", max_stake: str = "100.00"):
        user = player(username, "10000.00")
        supervisor = make_user("super-" + username, is_staff=True)
        player_limit_set(user=user, max_stake=Decimal(max_stake), reason="restricted at request", actor=supervisor)
        return user

    return make


@pytest.fixture
def pb_round(db):
    """A round at a table whose Player/Banker difference limit (5,000.00) is far above the personal maximum."""
    table = make_table("Personal", variant=make_variant("PB 5000", pb_difference_limit=Decimal("5000.00")))
    return make_round(table, closes_in=60)


@pytest.mark.parametrize("bet_type", ["tie", "banker", "player", "player_pair"])
def test_a_bet_at_the_personal_maximum_is_confirmed_and_one_cent_past_it_is_refused_whole(
    restricted, client_for, pb_round, bet_type
):
    alice = restricted("alice", "100.00")
    client = client_for(alice)

    past = post(client, pb_round.pk, bets(("any_pair", "1.00"), (bet_type, "100.01")), key="past")
    assert past.status_code == 400, past.json()
    assert past.json() == {
        "code": "above_max",
        "detail": f"Your personal maximum stake on {bet_type} in a round is 100.00 (this would make it 100.01).",
        "bet_type": bet_type,
        "limit": "100.00",
    }

    at = post(client, pb_round.pk, bets((bet_type, "100.00")), key="at")
    assert at.status_code == 201, at.json()
    before = snapshot()
    more = post(client, pb_round.pk, bets((bet_type, "0.01")), key="more")
    assert more.status_code == 400
    assert (more.json()["code"], more.json()["limit"]) == ("above_max", "100.00")
    assert "would make it 100.01" in more.json()["detail"]
    assert snapshot() == before


def test_a_refusal_past_the_personal_maximum_changes_nothing(restricted, client_for, pb_round):
    alice = restricted("alice", "50.00")
    before = snapshot()
    response = post(client_for(alice), pb_round.pk, bets(("player", "10.00"), ("banker", "50.01")))
    assert response.status_code == 400
    assert response.json()["limit"] == "50.00"
    assert snapshot() == before


def test_a_personal_maximum_above_the_tables_never_raises_it(restricted, client_for):
    round_ = make_round(make_table("Small", variant=make_variant("Tie 500", limits={"tie": ["1.00", "500.00"]})))
    alice = restricted("alice", "2000.00")
    response = post(client_for(alice), round_.pk, bets(("tie", "500.01")))
    assert response.status_code == 400
    assert response.json() | {"detail": ""} == {"code": "above_max", "detail": "", "bet_type": "tie", "limit": "500.00"}
    assert "personal" not in response.json()["detail"]


def test_a_cleared_limit_lets_the_tables_maximum_apply_again(restricted, client_for, pb_round):
    alice = restricted("alice", "100.00")
    player_limit_set(user=alice, max_stake=None, reason="restriction lifted", actor=make_user("lifter", is_staff=True))
    assert post(client_for(alice), pb_round.pk, bets(("tie", "100.01"))).status_code == 201


def test_another_players_personal_maximum_does_not_touch_yours(restricted, player, client_for, pb_round):
    restricted("alice", "10.00")
    bob = player("bob", "1000.00")
    assert post(client_for(bob), pb_round.pk, bets(("tie", "500.00"))).status_code == 201


def test_the_table_detail_shows_a_signed_in_player_their_personal_limits(restricted, player, client_for, pb_round):
    table_id = pb_round.table_id
    alice = restricted("alice", "250.00")
    bob = player("bob", "10.00")

    mine = client_for(alice).get(f"/api/tables/{table_id}/")
    assert mine.status_code == 200
    assert mine.json()["personal_limits"] == {"max_stake": "250.00"}
    assert client_for(bob).get(f"/api/tables/{table_id}/").json()["personal_limits"] is None
    assert client_for(None).get(f"/api/tables/{table_id}/").json()["personal_limits"] is None


def test_a_personal_maximum_costs_a_confirm_no_extra_statement(restricted, player, place, pb_round):
    """It is read inside the placement's existing query (tables/services/placement.py ``_MINE_ON_ROUND``)."""
    place(player("warm", "100.00"), pb_round, ("tie", "1.00"))  # the round's stake row and the id sequence
    counts = []
    for user in (restricted("alice", "100.00"), player("carol", "100.00")):
        with CaptureQueriesContext(connection) as queries:
            place(user, pb_round, ("tie", "1.00"))
        counts.append(len(queries))
    assert counts[0] == counts[1]
