"""The migration that bounds a table's pace and the difference limit first brings existing rows within the
new constraints, to the nearest playable value, instead of failing on them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tables.models import Table, Variant
from tests.factories import make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tables", "0010_tie_odds_as_stored")]
AFTER = [("tables", "0011_playable_settings")]


def migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def test_existing_unplayable_settings_are_brought_to_the_nearest_playable_value():
    limits = {"player": {"min": "2.00", "max": "100"}, "banker": {"min": "5.00", "max": "100"}}
    variant = make_variant("Zero limit", limits=limits)
    tie_only = make_variant("Tie only", limits={"tie": {"min": "1.00", "max": "100"}})
    slow = make_table("Slow", variant)
    fine = make_table("Fine", tie_only, betting_seconds=20, deal_interval_ms=900, result_seconds=4)
    try:
        migrate(BEFORE)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE tables_table SET betting_seconds = 3600, deal_interval_ms = 2000000000, result_seconds = 600"
                " WHERE id = %s",
                [slow.pk],
            )
            cursor.execute("UPDATE tables_variant SET pb_difference_limit = 0")
        migrate(AFTER)
    finally:
        migrate(latest())
    slow_now, fine_now = Table.objects.get(pk=slow.pk), Table.objects.get(pk=fine.pk)
    assert (slow_now.betting_seconds, slow_now.deal_interval_ms, slow_now.result_seconds) == (120, 10_000, 60)
    assert (fine_now.betting_seconds, fine_now.deal_interval_ms, fine_now.result_seconds) == (20, 900, 4)
    assert Variant.objects.get(pk=variant.pk).pb_difference_limit == Decimal("5.00")  # the larger minimum
    assert Variant.objects.get(pk=tie_only.pk).pb_difference_limit == Decimal("0.01")  # no Player/Banker
