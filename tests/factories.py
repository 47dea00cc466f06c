"""Plain functions that build rows for tests (no money: use wallets.services for that)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.utils import timezone

from tables.models import Round, Shoe, Table, Variant


def make_variant(name: str = "Baccarat", **fields: object) -> Variant:
    return Variant.objects.create(name=name, **fields)


def make_table(name: str = "Table 1", variant: Variant | None = None, **fields: object) -> Table:
    variant = variant or Variant.objects.filter(name="Baccarat").first() or make_variant()
    return Table.objects.create(name=name, variant=variant, **fields)


def make_shoe(table: Table, number: int = 1) -> Shoe:
    """A shoe row with a placeholder state, for tests that never deal from it."""
    return Shoe.objects.create(table=table, number=number, state={}, server_seed="00" * 32, commitment="0" * 64)


def make_round(
    table: Table | None = None,
    *,
    number: int = 1,
    state: str = Round.State.BETTING,
    closes_in: float = 15.0,
) -> Round:
    table = table or make_table()
    shoe = table.shoes.filter(finished_at__isnull=True).first() or make_shoe(table)
    now = timezone.now()
    return Round.objects.create(
        table=table,
        shoe=shoe,
        number=number,
        state=state,
        opens_at=now,
        closes_at=now + timedelta(seconds=closes_in),
    )


def make_user(username: str = "alice", password: str = "pass-word-123", **fields: object):
    return get_user_model().objects.create_user(username=username, password=password, **fields)


ZERO = Decimal("0.00")
