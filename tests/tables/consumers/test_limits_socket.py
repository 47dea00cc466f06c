"""The player's own limits on the socket: a place_bets frame past a limit gets an error frame, nothing placed."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from baccarat_site.accounts.limits import play_limits_set
from tables.models import Bet
from tests.tables.consumers.test_table_consumer import BETTING_SECONDS, connect
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("kind", ["wager_day", "wager_week", "wager_month", "loss_day", "loss_week", "loss_month"])
async def test_a_frame_up_to_the_limit_is_placed_and_one_cent_past_it_gets_limit_reached(kind, clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    await database_sync_to_async(play_limits_set)(user=alice, changes={kind: "15.00"})
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):  # one clock: see test_table_consumer.BETTING_SECONDS
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        communicator = await connect(table.pk, user=alice)
        await communicator.receive_json_from(timeout=5)

        async def attempt(key: str, amount: str) -> dict:
            await communicator.send_json_to(
                {
                    "type": "place_bets",
                    "round_id": round_.pk,
                    "mode": "traditional",
                    "idempotency_key": key,
                    "bets": [{"type": "player", "amount": amount}],
                }
            )
            while True:  # skip the table's own frames (bets_changed and the like)
                frame = await communicator.receive_json_from(timeout=5)
                if frame["type"] in ("error", "bets.confirmed"):
                    return frame

        assert (await attempt("a", "10.00"))["type"] == "bets.confirmed"
        refused = await attempt("b", "5.01")
        assert refused["type"] == "error"
        assert refused["code"] == "limit_reached"
        assert refused["limit"] == "15.00"
        assert "5.00 is left" in refused["detail"]
        assert await database_sync_to_async(Bet.objects.filter(user=alice).count)() == 1
        assert (await attempt("c", "5.00"))["type"] == "bets.confirmed"
    await communicator.disconnect()
