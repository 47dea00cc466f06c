"""Plain functions that build rows for tests (no money: use wallets.services for that)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from tables import engine
from tables.models import Round, Shoe, Table, Variant
from tables.services.variants import variant_create


def make_variant(name: str = "Baccarat", **fields: object) -> Variant:
    """A variant through the same service as the demo data; ``paytable``, ``limits``, ``unavailable_after``
    take the engine's dict shapes."""
    return variant_create(name=name, **fields)


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
        terms=table.terms(),  # as round_open: the variant's, narrowed by the table's own limits
    )


def make_user(username: str = "alice", password: str = "pass-word-123", **fields: object):
    return get_user_model().objects.create_user(username=username, password=password, **fields)


def make_staff(username: str, role: str | None = None, **fields: object):
    """A staff user in one role's group (``baccarat_site.roles``: Table operators, Dealers, Supervisors …)."""
    user = make_user(username, is_staff=True, **fields)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


ZERO = Decimal("0.00")


def make_finished_shoe(table: Table, number: int = 1, *, seed: str | None = None, finished_at: object = None) -> Shoe:
    """A shoe dealt to its cut card by the engine, with its rounds as the services record them, then finished."""
    variant = table.variant
    seed = seed or engine.new_server_seed()
    state = engine.new_shoe(variant.decks, seed_hex=seed, cut_range=(variant.cut_min, variant.cut_max))
    now = finished_at or timezone.now()
    shoe = Shoe.objects.create(
        table=table,
        number=number,
        state=state.to_dict(),
        server_seed=seed,
        commitment=engine.commitment(seed),
        burn_card=state.burn_card,
        burn_count=state.burn_count,
    )
    while not state.is_last_round:
        result = state.deal_round()
        cards = [
            {"hand": hand, "card": str(card), "position": i}
            for i, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
        ]
        Round.objects.create(
            table=table,
            shoe=shoe,
            number=state.round_number,
            state=Round.State.SETTLED,
            opens_at=now,
            closes_at=now,
            cards=cards,
            player_total=result.player_total,
            banker_total=result.banker_total,
            winner=str(result.winner),
            is_last_of_shoe=state.is_last_round,
            terms=variant.terms(),
        )
    Shoe.objects.filter(pk=shoe.pk).update(state=state.to_dict(), finished_at=now)
    shoe.refresh_from_db()
    return shoe
