"""variant_create leaves the table constraints to the database, so every one of them must be refused
first by a field validator or clean(), with a message on the field, and nothing written."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tables.models import Variant, VariantBet
from tables.services.variants import variant_create

pytestmark = pytest.mark.django_db

OK = {"banker": {"min": "5", "max": "10"}}

# One input per database constraint of Variant and VariantBet, and the field Django names.
BROKEN = {
    "variant_decks_1_to_8": ({"decks": 9}, "decks"),
    "variant_cut_range (min)": ({"cut_min": 0}, "cut_min"),
    "variant_cut_range (max)": ({"cut_min": 20, "cut_max": 10}, "cut_max"),
    "variant_pb_limit_positive": ({"pb_difference_limit": 0}, "pb_difference_limit"),
    "variant_tie_pays_8_or_9": ({"paytable": {"tie": 7}}, "pays_tie"),
    "variant_pays_positive": ({"paytable": {"banker": "0"}}, "pays_banker"),
    "variant_bonus_margins_positive": ({"paytable": {"bonus_margins": {"4": 0}}}, "pays_bonus_margin_4"),
    "variant_bet_known_type": ({"limits": {"nonsense": {"min": "5", "max": "10"}}}, "bet_type"),
    "variant_bet_min_positive": ({"limits": {"banker": {"min": "0", "max": "10"}}}, "min_stake"),
    "variant_bet_min_le_max": ({"limits": {"banker": {"min": "10", "max": "5"}}}, "max_stake"),
    "variant_bet_cutoff": ({"limits": OK, "unavailable_after": {"banker": 0}}, "last_shoe_round"),
}


def test_a_valid_variant_is_saved_with_one_row_per_offered_bet():
    variant = variant_create(name="Plain", limits={"banker": {"min": "5", "max": "50"}, "tie": (1, 10)})
    rows = {row.bet_type: (str(row.min_stake), str(row.max_stake)) for row in variant.bets.all()}
    assert rows == {"banker": ("5.00", "50.00"), "tie": ("1.00", "10.00")}


def test_every_database_constraint_has_a_case_here():
    names = {c.name for model in (Variant, VariantBet) for c in model._meta.constraints}
    covered = {case.split(" ")[0] for case in BROKEN} | {"variant_bet_once"}  # limits is a dict: one row a type
    assert names == covered


@pytest.mark.parametrize(("fields", "field"), BROKEN.values(), ids=BROKEN.keys())
def test_terms_a_constraint_forbids_are_refused_on_their_field_and_nothing_is_written(fields, field):
    before = (Variant.objects.count(), VariantBet.objects.count())
    with pytest.raises(ValidationError) as refused:
        variant_create(name="Broken", **fields)
    assert field in refused.value.message_dict, refused.value
    assert (Variant.objects.count(), VariantBet.objects.count()) == before
