"""The rules pages: the game explained, and each table's paytable, limits and exact odds from the engine."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest

from tables.engine import DEFAULT_PAYTABLE, Paytable
from tables.models import Table, default_limits
from tables.selectors.rules import bet_odds, percent
from tests.factories import make_table, make_variant
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table

LANGUAGES = ("en", "fa", "hi", "vi", "ru", "pt")


def odds_row(content: str, bet_type: str, mode: str = "traditional") -> dict[str, str]:
    """The odds table's cells of one bet: {"pays", "win", "push", "house_edge", "rtp"} as shown."""
    match = re.search(rf'<tr data-bet="{bet_type}" data-mode="{mode}">(.*?)</tr>', content, re.S)
    assert match, f"no odds row for {bet_type} ({mode})"
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", match.group(1), re.S)]
    return dict(zip(("pays", "win", "push", "house_edge", "rtp"), cells, strict=True))


def page(client, table=None, lang: str = "en") -> str:
    client.cookies["django_language"] = lang
    url = f"/tables/{table.id}/rules/" if table else "/rules/"
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def table(db):
    return make_table("Rules 8", make_variant("Eight decks"))


def test_an_eight_deck_table_with_the_default_paytable_shows_the_exact_edges(client, table):
    content = page(client, table)
    banker, player, tie = odds_row(content, "banker"), odds_row(content, "player"), odds_row(content, "tie")
    assert banker == {"pays": "0.95:1", "win": "45.86%", "push": "9.52%", "house_edge": "1.06%", "rtp": "98.94%"}
    assert player["house_edge"] == "1.24%"
    assert player["rtp"] == "98.76%"
    assert tie["house_edge"] == "14.36%"
    assert tie["win"] == "9.52%"
    assert tie["push"] == "—"


def test_the_return_to_player_is_shown_truncated_never_rounded_up(client, db):
    # One deck's Banker returns 98.98825…%: 98.98%, not 98.99%; its edge 1.01174…% stays rounded to the nearest.
    table = make_table("One deck", make_variant("One deck", decks=1, cut_min=12, cut_max=13))
    banker = odds_row(page(client, table), "banker")
    assert banker["rtp"] == "98.98%"
    assert banker["house_edge"] == "1.01%"


def test_a_table_paying_tie_nine_to_one_shows_its_own_edge(client, db):
    table = make_table("Nine", make_variant("Tie 9", paytable={"tie": "9"}))
    tie = odds_row(page(client, table), "tie")
    assert tie["pays"] == "9:1"
    assert tie["house_edge"] == "4.84%"


def test_the_no_commission_banker_bet_has_its_own_row_and_edge(client, table):
    row = odds_row(page(client, table), "banker", "no_commission")
    assert row["pays"] == "1:1 · 6 → 1:2"
    assert row["house_edge"] == "1.46%"
    assert row["rtp"] == "98.54%"


def test_the_bonus_bets_show_their_push_on_a_natural_tie(client, table):
    content = page(client, table)
    assert odds_row(content, "player_bonus")["push"] == "1.79%"
    assert odds_row(content, "player_bonus")["house_edge"] == "2.65%"
    assert odds_row(content, "banker_bonus")["house_edge"] == "9.37%"


def test_a_six_deck_table_is_priced_for_six_decks(client, table):
    six = make_table("Rules 6", make_variant("Six decks", decks=6))
    eight_content, six_content = page(client, table), page(client, six)
    assert odds_row(six_content, "tie")["house_edge"] == "14.44%"
    assert odds_row(six_content, "tie")["house_edge"] != odds_row(eight_content, "tie")["house_edge"]
    assert odds_row(six_content, "perfect_pair")["house_edge"] != odds_row(eight_content, "perfect_pair")["house_edge"]
    assert "6 decks" in six_content


def test_a_bet_the_table_does_not_offer_is_not_listed(client, db):
    limits = {t: v for t, v in default_limits().items() if t != "lucky_six_3"}
    table = make_table("No three", make_variant("No 3-card", limits=limits))
    content = page(client, table)
    assert 'data-bet="lucky_six_3"' not in content
    assert "3-Card Lucky Six" not in content
    assert 'data-bet="lucky_six_2"' in content


def test_the_paytable_shows_each_bets_limits_and_shoe_round_cut_off(client, db):
    limits = default_limits() | {"tie": {"min": "2.00", "max": "1234.00"}}
    table = make_table("Limits", make_variant("Limits", limits=limits))
    content = page(client, table)
    row = re.search(r'<tr data-bet="tie">(.*?)</tr>', content, re.S).group(1)
    assert "2.00" in row
    assert "1,234.00" in row
    pair = re.search(r'<tr data-bet="player_pair">(.*?)</tr>', content, re.S).group(1)
    assert ">60<" in pair
    assert "A bet offered until shoe round 50 can be placed in rounds 1 to 50" in content


def test_an_unknown_table_is_a_404(client, db):
    assert client.get("/tables/999999/rules/").status_code == 404


def test_the_worked_difference_example_uses_the_tables_limit(client, db):
    table = make_table("Diff", make_variant("Diff 1,000", pb_difference_limit=Decimal("1000.00")))
    content = page(client, table)
    example = re.search(r"Example at this table, whose limit is (.*?)would be refused", content, re.S)
    assert example, "the example is there"
    text = " ".join(example.group(0).split())
    assert text.startswith("Example at this table, whose limit is 1,000.00: you stake 1,000.00 on Player.")
    assert "up to 2,000.00 on Banker" in text


def test_the_general_rules_show_the_default_eight_deck_odds_and_link_every_table(client, table):
    other = make_table("Rules 9", make_variant("Nine", paytable={"tie": "9"}), status="paused")
    content = page(client)
    assert odds_row(content, "banker")["house_edge"] == "1.06%"
    assert odds_row(content, "tie")["house_edge"] == "14.36%"
    assert odds_row(content, "player")["house_edge"] == "1.24%"
    assert f'href="/tables/{table.id}/rules/"' in content
    assert f'href="/tables/{other.id}/rules/"' in content
    assert '<span class="rules-status">Paused</span>' in content
    assert 'href="/fair/"' in content
    # A new variant's difference limit, as an example.
    example = " ".join(re.search(r"Example with a limit of .*?refused", content, re.S).group(0).split())
    assert example.startswith("Example with a limit of 5,000.00: you stake 5,000.00 on Player.")
    assert "up to 10,000.00 on Banker" in example


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_renders_both_pages_translated_with_dotted_percentages(client, table, lang):
    for content in (page(client, table, lang), page(client, None, lang)):
        assert f'<html lang="{lang}"' in content
        assert odds_row(content, "banker")["house_edge"] == "1.06%"
        assert odds_row(content, "banker")["rtp"] == "98.94%"
        if lang != "en":
            assert "Every round has two hands" not in content
            assert "The round goes on without you" not in content


def test_percentages_round_half_up_to_two_decimals():
    assert percent(Fraction(10579, 1_000_000)) == "1.06%"
    assert percent(Fraction(1, 8)) == "12.50%"
    assert percent(Fraction(0)) == "0.00%"


def test_the_odds_are_computed_once_per_decks_and_paytable():
    bet_odds.cache_clear()
    first = bet_odds(8, DEFAULT_PAYTABLE)
    again = bet_odds(8, Paytable.from_dict(DEFAULT_PAYTABLE.to_dict()))
    assert again is first
    assert bet_odds.cache_info().hits == 1
    assert bet_odds(8, Paytable(tie=Decimal(9))) is not first


def test_a_one_deck_shoe_dealt_after_a_switch_to_eight_decks_lists_no_perfect_pair(client, db):
    """The table's rules are what its next round opens with: the one-deck shoe still being dealt offers no Perfect
    Pair (it can never win there), although the table's variant now has eight decks and offers it."""
    table = fast_table(variant=make_variant("One deck", decks=1, cut_min=12, cut_max=13))
    clock = Clock()
    drive_to_state(table, clock, "settled")
    Table.objects.filter(pk=table.pk).update(variant=make_variant("Eight decks"))
    drive_to_state(table, clock, "betting")
    content = page(client, table)
    assert '<tr data-bet="perfect_pair"' not in content
    assert odds_row(content, "player_pair")["rtp"]  # the pairs of ranks are still there
