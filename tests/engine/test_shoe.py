"""The shoe procedure: burn, cut card, the last round past the cut, never running out mid-round."""

import json

import pytest

from tables.engine import Card, Rank, ShoeState, burn_count_for, new_shoe, parse_cards
from tables.engine.shoe import ShoeExhausted, clamp_cut_range

SEED = "5a" * 32


def seed(n: int) -> str:
    return f"{n:064x}"


@pytest.mark.parametrize(
    ("rank", "burned"),
    [
        (Rank.ACE, 1),
        (Rank.TWO, 2),
        (Rank.THREE, 3),
        (Rank.FOUR, 4),
        (Rank.FIVE, 5),
        (Rank.SIX, 6),
        (Rank.SEVEN, 7),
        (Rank.EIGHT, 8),
        (Rank.NINE, 9),
        (Rank.TEN, 10),
        (Rank.JACK, 10),
        (Rank.QUEEN, 10),
        (Rank.KING, 10),
    ],
)
def test_the_burn_card_burns_its_value_and_tens_and_faces_burn_ten(rank, burned):
    assert burn_count_for(Card(rank, "S")) == burned


def test_a_new_shoe_shows_its_first_card_and_burns_that_many_more_for_every_first_rank():
    seen: set[str] = set()
    n = 0
    while len(seen) < 13:
        shoe = new_shoe(8, seed_hex=seed(n))
        first = shoe.cards[0]
        assert shoe.burn_card == str(first)
        assert shoe.burn_count == (first.value or 10)
        assert shoe.position == 1 + shoe.burn_count
        assert shoe.round_number == 0
        assert not shoe.is_last_round
        seen.add(first.rank.value)
        n += 1


def test_the_cut_card_lies_among_the_last_14_to_26_cards_by_default_and_each_position_occurs():
    behind = {new_shoe(8, seed_hex=seed(n)).cards_behind_cut for n in range(400)}
    assert behind == set(range(14, 27))


def test_the_cut_range_is_configurable():
    behind = {new_shoe(6, seed_hex=seed(n), cut_range=(60, 70)).cards_behind_cut for n in range(200)}
    assert behind == set(range(60, 71))


def test_the_cut_range_is_clamped_so_a_final_round_always_fits_and_one_round_fits_before():
    assert clamp_cut_range(52, (14, 26)) == (14, 26)
    assert clamp_cut_range(52, (0, 3)) == (6, 6)
    assert clamp_cut_range(52, (14, 100)) == (14, 35)
    assert clamp_cut_range(416, (14, 26)) == (14, 26)
    with pytest.raises(ValueError, match="cut range"):
        clamp_cut_range(416, (26, 14))


def test_same_seed_gives_the_same_shoe():
    assert new_shoe(8, seed_hex=SEED) == new_shoe(8, seed_hex=SEED)
    assert new_shoe(8, seed_hex=SEED).cards != new_shoe(8, seed_hex="5b" * 32).cards


def test_a_shoe_holds_52_cards_per_deck_each_exactly_once_per_deck():
    for decks in range(1, 9):
        shoe = new_shoe(decks, seed_hex=SEED)
        assert len(shoe.cards) == 52 * decks
        assert all(shoe.cards.count(card) == decks for card in set(shoe.cards))


def test_shoe_state_round_trips_through_json_mid_shoe():
    shoe = new_shoe(8, seed_hex=SEED)
    shoe.deal_round()
    shoe.deal_round()
    again = ShoeState.from_dict(json.loads(json.dumps(shoe.to_dict())))
    assert again == shoe
    assert again.deal_round() == shoe.deal_round()


def test_shoe_state_without_the_order_regenerates_it_from_the_seed():
    shoe = new_shoe(2, seed_hex=SEED)
    data = shoe.to_dict()
    del data["cards"]
    assert ShoeState.from_dict(data) == shoe


def _play_out(shoe: ShoeState) -> list[int]:
    """Deal rounds until the cut card is out; returns how many cards each round took."""
    sizes = []
    while not shoe.is_last_round:
        before = shoe.position
        result = shoe.deal_round()
        sizes.append(shoe.position - before)
        assert len(result.player_cards) + len(result.banker_cards) == sizes[-1]
    return sizes


def test_the_round_that_brings_out_the_cut_card_is_the_last_and_is_completed_past_it():
    shoe = new_shoe(8, seed_hex=SEED)
    _play_out(shoe)
    assert shoe.is_last_round
    assert shoe.position > shoe.cut_index  # the last round drew the card behind the cut card
    with pytest.raises(ValueError, match="cut card"):
        shoe.deal_round()


def test_the_cut_card_comes_out_when_the_first_card_behind_it_is_drawn():
    shoe = new_shoe(1, seed_hex=SEED)
    shoe.position = shoe.cut_index - 1
    shoe.draw()
    assert not shoe.is_last_round  # the card just before the cut card
    shoe.draw()
    assert shoe.is_last_round


@pytest.mark.parametrize("decks", range(1, 9))
def test_a_shoe_never_runs_out_mid_round(decks):
    for n in range(40):
        for cut_range in ((14, 26), (0, 0), (26, 26), (0, 10_000)):
            shoe = new_shoe(decks, seed_hex=seed(1000 * decks + n), cut_range=cut_range)
            _play_out(shoe)
            assert shoe.cards_left >= 0


def test_worst_case_one_deck_burn_eleven_and_six_card_last_round_starting_at_the_cut_still_completes():
    # One deck, the largest burn (a ten, then ten more), the cut card as far back as the clamp allows,
    # a last round that starts exactly at the cut and needs all six cards: it still completes.
    shoe = new_shoe(1, seed_hex=SEED, cut_range=(6, 6))
    assert shoe.cards_behind_cut == 6
    six_card_round = parse_cards("2S AH 2D AC 4S 4H")  # P 4 draws a 4; B 2 draws: six cards
    shoe.cards[shoe.cut_index :] = six_card_round
    shoe.position = shoe.cut_index
    result = shoe.deal_round()
    assert len(result.player_cards) + len(result.banker_cards) == 6
    assert shoe.cards_left == 0
    assert shoe.is_last_round
    with pytest.raises(ShoeExhausted):
        shoe.draw()


def test_worst_case_largest_burn_and_farthest_cut_leave_room_for_a_round_before_the_cut_on_one_deck():
    low, high = clamp_cut_range(52, (14, 10_000))
    assert 52 - 11 - high >= 6  # after an 11-card burn a whole round is dealt before the cut
    assert low >= 6  # a last round starting at the cut finds the 6 cards it may need
