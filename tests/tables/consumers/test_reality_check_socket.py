"""The reality check on the socket: a place_bets frame while the player's check is due and unanswered gets an
error frame ``reality_check_due`` and nothing is placed; once they answer, the same frame is confirmed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async

from baccarat_site.accounts.limits import play_limits_set, reality_check_answer
from baccarat_site.accounts.models import SignIn
from tables.models import Bet
from tests.tables.consumers.test_table_consumer import BETTING_SECONDS, connect
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def _session_began(user, at) -> None:
    SignIn.objects.create(user=user)
    SignIn.objects.filter(user=user).update(at=at)


async def test_a_frame_during_an_unanswered_check_is_refused_and_one_after_the_answer_is_placed(clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)
    alice = await database_sync_to_async(make_player)("alice", "100.00")
    await database_sync_to_async(play_limits_set)(user=alice, changes={"reality_check_minutes": 15})
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):  # one clock: see test_table_consumer.BETTING_SECONDS
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        communicator = await connect(table.pk, user=alice)
        await communicator.receive_json_from(timeout=5)
        await database_sync_to_async(_session_began)(alice, table_clock.now - timedelta(minutes=16))

        async def attempt(key: str) -> dict:
            await communicator.send_json_to(
                {
                    "type": "place_bets",
                    "round_id": round_.pk,
                    "mode": "traditional",
                    "idempotency_key": key,
                    "bets": [{"type": "player", "amount": "5.00"}],
                }
            )
            while True:  # skip the table's own frames (bets_changed and the like)
                frame = await communicator.receive_json_from(timeout=5)
                if frame["type"] in ("error", "bets.confirmed"):
                    return frame

        refused = await attempt("a")
        assert (refused["type"], refused["code"]) == ("error", "reality_check_due")
        assert await database_sync_to_async(Bet.objects.filter(user=alice).count)() == 0

        await database_sync_to_async(reality_check_answer)(user=alice)
        assert (await attempt("a"))["type"] == "bets.confirmed"
        assert await database_sync_to_async(Bet.objects.filter(user=alice).count)() == 1
    await communicator.disconnect()
