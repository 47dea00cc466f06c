"""A player's personal maximum over the table socket: the snapshot carries it, and a ``place_bets`` past it gets
the same ``above_max`` error as REST and changes nothing (docs/rules.md "Personal limits")."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async

from baccarat_site.accounts.services import player_limit_set
from tests.factories import make_user
from tests.tables.consumers.test_table_consumer import BETTING_SECONDS, connect
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def restricted_player(username: str, max_stake: str):
    user = make_player(username, "1000.00")
    supervisor = make_user(f"super-{username}", is_staff=True)
    player_limit_set(user=user, max_stake=Decimal(max_stake), reason="restricted at request", actor=supervisor)
    return user


async def reply(communicator, round_id: int, *bets: tuple[str, str]) -> dict:
    await communicator.send_json_to(
        {
            "type": "place_bets",
            "round_id": round_id,
            "mode": "traditional",
            "idempotency_key": str(uuid.uuid4()),
            "bets": [{"type": t, "amount": a} for t, a in bets],
        }
    )
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        if frame["type"] in {"error", "bets.confirmed"}:
            return frame


async def test_the_snapshot_carries_the_players_personal_limits_and_only_theirs():
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(restricted_player)("alice", "75.50")
    bob = await database_sync_to_async(make_player)("bob", "10.00")
    await database_sync_to_async(drive_to_state)(table, Clock(), "betting")

    mine = await connect(table.pk, user=alice)
    assert (await mine.receive_json_from(timeout=5))["personal_limits"] == {"max_stake": "75.50"}
    theirs = await connect(table.pk, user=bob)
    assert (await theirs.receive_json_from(timeout=5))["personal_limits"] is None
    watcher = await connect(table.pk)
    assert "personal_limits" not in await watcher.receive_json_from(timeout=5)
    for communicator in (mine, theirs, watcher):
        await communicator.disconnect()


async def test_a_socket_bet_at_the_personal_maximum_is_confirmed_and_one_cent_past_it_is_refused(clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(restricted_player)("alice", "100.00")
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):  # one clock: see test_table_consumer.BETTING_SECONDS
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        communicator = await connect(table.pk, user=alice)
        await communicator.receive_json_from(timeout=5)

        refused = await reply(communicator, round_.pk, ("player", "10.00"), ("banker", "100.01"))
        assert refused == {
            "type": "error",
            "code": "above_max",
            "detail": "Your personal maximum stake on banker in a round is 100.00 (this would make it 100.01).",
            "bet_type": "banker",
            "limit": "100.00",
        }
        assert await database_sync_to_async(balance_of)(alice) == Decimal("1000.00")

        assert (await reply(communicator, round_.pk, ("banker", "100.00")))["type"] == "bets.confirmed"
        past = await reply(communicator, round_.pk, ("banker", "0.01"))
        assert (past["code"], past["bet_type"], past["limit"]) == ("above_max", "banker", "100.00")
        assert await database_sync_to_async(balance_of)(alice) == Decimal("900.00")
        count = await database_sync_to_async(lambda: round_.bets.count())()
        assert count == 1
    await communicator.disconnect()
