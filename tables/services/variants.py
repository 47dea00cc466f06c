"""Creating variants from code (demo data, tests, tools): typed paytable fields and one row per offered bet.

Operators create and edit variants in the admin, whose forms validate the same fields; this is the one
place code does it.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from tables.engine import BET_TYPES, DEFAULT_UNAVAILABLE_AFTER, Paytable
from tables.models import BONUS_MARGINS, PAYTABLE_FIELDS, Variant, VariantBet, default_limits


def paytable_fields(paytable: Mapping[str, Any]) -> dict[str, Any]:
    """A paytable in the engine's dict shape (keys left out keep RULES' defaults) as Variant field values."""
    engine = Paytable.from_dict(paytable)
    fields: dict[str, Any] = {f"pays_{name}": getattr(engine, name) for name in PAYTABLE_FIELDS}
    margins = dict(engine.bonus_margins)
    for margin in BONUS_MARGINS:
        fields[f"pays_bonus_margin_{margin}"] = margins.get(margin)
    return fields


@transaction.atomic
def variant_create(
    *,
    name: str,
    paytable: Mapping[str, Any] | None = None,
    limits: Mapping[str, Mapping[str, Any]] | None = None,
    unavailable_after: Mapping[str, int | None] | None = None,
    **fields: Any,
) -> Variant:
    """A saved, validated variant. ``limits``: ``{bet_type: {"min": …, "max": …}}`` for the bets it offers
    (default: every bet that can win with ``decks``, 1.00–5,000.00 for the main bets and 1.00–500.00 for side
    bets); ``unavailable_after``: the last shoe round of each bet (default: RULES' cut-offs). Refused
    (``ValidationError``) as the admin refuses them: no offered bet, a bet that can never win with ``decks``,
    a Player/Banker difference limit below the Player or Banker minimum."""
    variant = Variant(name=name, **paytable_fields(paytable or {}), **fields)
    # Every table constraint of Variant and VariantBet has a field validator or a clean() rule that refuses
    # the same input first, with a message for its field (tests/tables/services/test_variant_create.py
    # covers each). So the constraints are left to the database as the rows go in, instead of one query
    # per constraint and row from full_clean.
    variant.full_clean(validate_constraints=False)
    cutoffs = DEFAULT_UNAVAILABLE_AFTER if unavailable_after is None else unavailable_after
    if limits is None:  # every bet that can win with this many decks (not Perfect Pair from one deck)
        defaults = default_limits()
        never = variant.bets_that_never_win(defaults)
        limits = {bet_type: limit for bet_type, limit in defaults.items() if bet_type not in never}
    rows = []
    for bet_type, limit in limits.items():
        low, high = (limit["min"], limit["max"]) if isinstance(limit, Mapping) else limit
        row = VariantBet(
            bet_type=bet_type,
            min_stake=Decimal(str(low)),
            max_stake=Decimal(str(high)),
            last_shoe_round=cutoffs.get(bet_type),
        )
        row.full_clean(exclude=["variant"], validate_constraints=False)
        rows.append(row)
    rows.sort(key=lambda row: BET_TYPES.index(row.bet_type))
    # The rows and the variant together, as the admin's offered-bets formset checks them.
    offer_errors = variant.offer_errors({row.bet_type: row.min_stake for row in rows})
    if offer_errors:
        raise ValidationError(offer_errors)
    variant.save()
    for row in rows:
        row.variant = variant
    VariantBet.objects.bulk_create(rows)
    return variant
