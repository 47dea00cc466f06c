"""Staff never stake with the house: a dealer on the cards he scans, a supervisor on a round he may void. Every path
that places a bet (the service, REST, the table socket; the multi-table page confirms over REST) refuses a staff
account, whether it is marked ``is_staff`` or only belongs to a staff role's group, and nothing changes."""

from __future__ import annotations

import uuid

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import Group

from baccarat_site import roles
from baccarat_site.errors import DomainError
from tables.models import Bet, BetPlacement
from tables.services.placement import bet_place
from tests.tables.consumers.test_table_consumer import BETTING_SECONDS, connect
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player
from wallets.models import LedgerEntry, Wallet


def _staff_with_money(player, role: str | None, *, is_staff: bool = True):
    """A player funded first (as a player may be, before they join the staff), then made staff."""
    user = player(f"staff-{role or 'plain'}-{is_staff}".replace(" ", "-").lower(), "500.00")
    if is_staff:
        type(user).objects.filter(pk=user.pk).update(is_staff=True)
        user.refresh_from_db()
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


def _place(user, round_):
    return bet_place(
        user=user,
        round_id=round_.pk,
        mode="traditional",
        bets=[{"type": "banker", "amount": "100.00"}],
        idempotency_key=str(uuid.uuid4()),
    )


@pytest.mark.parametrize("role", [*roles.ROLES, None])
def test_every_staff_role_is_refused_staff_cannot_bet_and_nothing_changes(player, betting_round, role):
    user = _staff_with_money(player, role)
    entries = LedgerEntry.objects.count()
    with pytest.raises(DomainError) as caught:
        _place(user, betting_round)
    assert caught.value.code == "staff_cannot_bet"
    assert caught.value.status == 403
    assert Wallet.objects.get(user=user).balance == 500
    assert LedgerEntry.objects.count() == entries
    assert not Bet.objects.exists()
    assert not BetPlacement.objects.exists()


@pytest.mark.parametrize("role", [roles.DEALERS, roles.SUPERVISORS])
def test_a_member_of_a_staff_group_is_refused_even_without_is_staff(player, betting_round, role):
    user = _staff_with_money(player, role, is_staff=False)
    with pytest.raises(DomainError) as caught:
        _place(user, betting_round)
    assert caught.value.code == "staff_cannot_bet"


def test_a_player_in_no_staff_group_still_bets(player, betting_round):
    alice = player("alice", "500.00")
    assert _place(alice, betting_round).balance == 400


def test_rest_refuses_a_dealers_bet_with_403_staff_cannot_bet(player, betting_round, client_for):
    dealer = _staff_with_money(player, roles.DEALERS)
    response = client_for(dealer).post(
        f"/api/rounds/{betting_round.pk}/bets/",
        {"mode": "traditional", "bets": [{"type": "banker", "amount": "100.00"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k-1",
    )
    assert response.status_code == 403, response.json()
    assert response.json()["code"] == "staff_cannot_bet"
    assert not Bet.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_refuses_a_supervisors_bet_with_an_error_frame(clock):
    table = await database_sync_to_async(fast_table)(betting_seconds=BETTING_SECONDS)

    def supervisor():
        user = make_player("sam", "500.00")
        user.groups.add(Group.objects.get(name=roles.SUPERVISORS))
        type(user).objects.filter(pk=user.pk).update(is_staff=True)
        user.refresh_from_db()
        return user

    sam = await database_sync_to_async(supervisor)()
    table_clock = Clock()
    with clock.frozen_at(table_clock.now):
        round_ = await database_sync_to_async(drive_to_state)(table, table_clock, "betting")
        communicator = await connect(table.pk, user=sam)
        await communicator.receive_json_from(timeout=5)
        await communicator.send_json_to(
            {
                "type": "place_bets",
                "round_id": round_.pk,
                "mode": "traditional",
                "idempotency_key": "s-1",
                "bets": [{"type": "banker", "amount": "100.00"}],
            }
        )
        while True:
            frame = await communicator.receive_json_from(timeout=5)
            if frame["type"] in ("error", "bets.confirmed"):
                break
        assert frame["type"] == "error"
        assert frame["code"] == "staff_cannot_bet"
        assert await database_sync_to_async(Bet.objects.count)() == 0
    await communicator.disconnect()
