"""A player's own stop (a time-out, a self-exclusion) is kept by the database itself (accounts migration 0010):
whatever sends the SQL, it cannot be deleted, shortened, made open-ended, lifted, moved to another player or
turned into a kind staff can lift. Staff stops keep their lifts, and a player's own stop may only get longer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from baccarat_site.accounts import services
from baccarat_site.accounts.models import Restriction
from tests.factories import make_staff, make_user

pytestmark = pytest.mark.django_db


def _raw(sql: str, *params: object) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


@pytest.fixture
def excluded():
    alice = make_user("alice")
    return services.player_self_restrict(user=alice, kind="self_exclusion", period="6m")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE accounts_restriction SET ends_at = ends_at - interval '1 day' WHERE id = %s",
        "UPDATE accounts_restriction SET ends_at = starts_at + interval '1 minute' WHERE id = %s",
        "UPDATE accounts_restriction SET ends_at = NULL WHERE id = %s",
        "UPDATE accounts_restriction SET kind = 'suspension' WHERE id = %s",
        "UPDATE accounts_restriction SET kind = 'time_out' WHERE id = %s",
        "UPDATE accounts_restriction SET starts_at = starts_at + interval '1 day' WHERE id = %s",
        "UPDATE accounts_restriction SET lift_reason = 'asked nicely' WHERE id = %s",
        "DELETE FROM accounts_restriction WHERE id = %s",
    ],
    ids=["shorten", "shorten-to-a-minute", "no-end", "to-suspension", "to-time-out", "start-later", "lift", "delete"],
)
def test_a_raw_update_or_delete_of_a_self_exclusion_is_refused(excluded, sql):
    before = Restriction.objects.values().get(pk=excluded.pk)
    with pytest.raises(IntegrityError, match="self_exclusion cannot be"), transaction.atomic():
        _raw(sql, excluded.pk)
    assert Restriction.objects.values().get(pk=excluded.pk) == before


def test_a_time_out_cannot_be_moved_to_another_player_or_deleted_by_the_orm():
    bob = make_user("bob")
    stop = services.player_self_restrict(user=make_user("alice"), kind="time_out", period="24h")
    with pytest.raises(IntegrityError), transaction.atomic():
        Restriction.objects.filter(pk=stop.pk).update(user=bob)
    with pytest.raises(IntegrityError), transaction.atomic():
        Restriction.objects.filter(pk=stop.pk).delete()
    assert Restriction.objects.get(pk=stop.pk).user.username == "alice"


def test_a_players_own_stop_may_get_longer(excluded):
    assert _raw("UPDATE accounts_restriction SET ends_at = ends_at + interval '1 day' WHERE id = %s", excluded.pk) == 1
    assert Restriction.objects.get(pk=excluded.pk).ends_at == excluded.ends_at + timedelta(days=1)


def test_staff_stops_are_still_lifted_and_changed():
    supervisor = make_staff("sam", is_superuser=True)
    alice = make_user("alice")
    stop = services.player_suspend(user=alice, reason="Chargeback check", actor=supervisor)
    assert services.player_reinstate(user=alice, reason="All clear", actor=supervisor) == 1
    assert Restriction.objects.get(pk=stop.pk).lifted_at is not None
    assert _raw("UPDATE accounts_restriction SET kind = 'closure' WHERE id = %s", stop.pk) == 1
    assert _raw("UPDATE accounts_restriction SET starts_at = %s WHERE id = %s", timezone.now(), stop.pk) == 1
