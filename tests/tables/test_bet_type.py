"""One translated bet-type enum (tables.labels.BetType): the models' choices, the labels and the pages use it."""

from django.utils import translation

from tables.engine import BET_TYPES
from tables.labels import BET_NAMES, BetType
from tables.models import TableLimit, VariantBet


def test_the_enum_holds_the_engines_bet_types_in_order_and_the_labels_are_its_names():
    assert tuple(BetType.values) == BET_TYPES
    assert dict(BetType.choices) == BET_NAMES
    assert BetType.LUCKY_SIX_2.label == "2-Card Lucky Six"


def test_the_models_offer_the_enums_choices():
    for model in (VariantBet, TableLimit):
        assert model._meta.get_field("bet_type").choices == BetType.choices, model


def test_the_names_are_translated_lazily():
    with translation.override("ru"):
        assert str(BetType.PLAYER_PAIR.label) == str(BET_NAMES["player_pair"]) != "Player Pair"
        assert VariantBet(bet_type="player_pair").get_bet_type_display() == str(BetType.PLAYER_PAIR.label)
    assert str(BetType.PLAYER_PAIR.label) == "Player Pair"
