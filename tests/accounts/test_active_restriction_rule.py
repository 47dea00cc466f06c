"""The restriction that stops a player now is one rule written twice: the ORM's ``active_restriction`` (pages,
sign-in, tokens) and its SQL join ``ACTIVE_RESTRICTION_JOIN`` (read with other facts in the one query of a bet's
placement and of a chat message). Every allowed row, and every pair of them, gets the same answer from both."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from baccarat_site.accounts.models import Restriction
from baccarat_site.accounts.selectors import ACTIVE_RESTRICTION_JOIN, active_restriction
from tests.factories import make_staff, make_user

NOW = timezone.now().replace(microsecond=0)
HOUR = timedelta(hours=1)


def _rows() -> list[dict[str, object]]:
    """Every shape of row the database allows, around NOW: started or not, ended or running or open-ended, lifted
    or not (staff stops only; a player's own stop needs an end and runs its course)."""
    rows: list[dict[str, object]] = []
    for kind in Restriction.Kind:
        staff = kind in (Restriction.Kind.SUSPENSION, Restriction.Kind.CLOSURE)
        for starts in (NOW - 2 * HOUR, NOW + HOUR):
            ends_options = [None, starts + HOUR, starts + 3 * HOUR] if staff else [starts + HOUR, starts + 3 * HOUR]
            for ends in ends_options:
                for lifted in (False, True) if staff else (False,):
                    rows.append({"kind": kind, "starts_at": starts, "ends_at": ends, "lifted": lifted, "staff": staff})
    return rows


def _by_sql(user_id: int) -> tuple[object, object] | None:
    users = get_user_model()._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT r.kind, r.ends_at FROM "{users}" u {ACTIVE_RESTRICTION_JOIN} WHERE u.id = %s', [NOW, NOW, user_id]
        )
        kind, ends_at = cursor.fetchone()
    return None if kind is None else (kind, ends_at)


@pytest.mark.django_db
def test_the_sql_join_and_the_orm_pick_the_same_restriction_for_every_row_and_pair_of_rows():
    player = make_user("restricted")
    supervisor = make_staff("supervisor")
    rows = _rows()
    cases = [(row,) for row in rows] + list(itertools.combinations(rows, 2))
    disagreements = []
    for case in cases:
        with transaction.atomic():
            for row in case:
                Restriction.objects.create(
                    user=player,
                    kind=row["kind"],
                    starts_at=row["starts_at"],
                    ends_at=row["ends_at"],
                    created_by=supervisor if row["staff"] else None,
                    lifted_at=NOW - HOUR / 2 if row["lifted"] else None,
                    lifted_by=supervisor if row["lifted"] else None,
                )
            found = active_restriction(user_id=player.pk, now=NOW)
            orm = None if found is None else (found.kind, found.ends_at)
            sql = _by_sql(player.pk)
            # Two stops ending together (both open-ended, say) are equal candidates: the end must agree, the kind
            # only when the end decides.
            ends = [r["ends_at"] for r in case]
            tie = len(ends) == 2 and ends[0] == ends[1]
            same = (orm is None) == (sql is None) and (orm is None or (orm[1] == sql[1] and (tie or orm[0] == sql[0])))
            if not same:
                disagreements.append((case, orm, sql))
            transaction.set_rollback(True)
    assert len(cases) > 150
    assert disagreements == []
