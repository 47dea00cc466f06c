"""The player's pages render for everyone they are meant for, and only for them."""

import json
import re
from decimal import Decimal

import pytest

from tables.engine import DEFAULT_PAYTABLE
from tests.factories import make_round, make_table, make_user, make_variant


@pytest.fixture
def table(db):
    return make_table("Baccarat 1", make_variant("Baccarat"))


def test_lobby_lists_every_table_with_a_link(client, table):
    response = client.get("/")
    assert response.status_code == 200
    assert f'href="/tables/{table.id}/"'.encode() in response.content
    assert b"Baccarat 1" in response.content


def test_table_page_shows_all_fourteen_bet_spots_to_a_signed_in_player(client, table):
    client.force_login(make_user())
    response = client.get(f"/tables/{table.id}/")
    assert response.status_code == 200
    assert response.content.count(b'<button type="button" class="spot spot-') == 14
    for action in (b'id="undo"', b'id="clear"', b'id="repeat"', b'id="double"', b'id="confirm"'):
        assert action in response.content


def test_a_bet_type_the_variant_does_not_offer_is_shown_disabled(client, table):
    table.variant.bets.filter(bet_type="lucky_six_3").delete()
    client.force_login(make_user())
    content = client.get(f"/tables/{table.id}/").content.decode()
    spot = content[content.index('data-type="lucky_six_3"') :][:80]
    assert "disabled" in spot


def test_a_watcher_sees_the_table_but_is_invited_to_log_in_to_bet(client, table):
    response = client.get(f"/tables/{table.id}/")
    assert response.status_code == 200
    assert b"Log in to bet" in response.content
    assert b'id="confirm"' not in response.content
    assert b'id="chips"' not in response.content


def test_an_unknown_table_is_a_404_not_a_500(client, db):
    assert client.get("/tables/999999/").status_code == 404


def test_the_bet_record_asks_for_a_login(client, db):
    response = client.get("/bets/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_bet_record_renders_for_a_player(client, table):
    client.force_login(make_user())
    response = client.get("/bets/")
    assert response.status_code == 200
    assert b'id="record"' in response.content


def _config(content: bytes) -> dict:
    match = re.search(rb'<script id="table-config" type="application/json">(.*?)</script>', content, re.S)
    assert match, "the table page carries its board as JSON"
    return json.loads(match.group(1))


def test_the_board_shows_the_tables_own_paytable_in_both_modes(client, db):
    paytable = DEFAULT_PAYTABLE.to_dict() | {"tie": "9"}
    table = make_table("Nine", make_variant("Tie 9", paytable=paytable))
    content = client.get(f"/tables/{table.id}/").content
    spots = {spot["type"]: spot for spot in _config(content)["spots"]}
    assert spots["tie"]["pays"] == {"traditional": "9:1", "no_commission": "9:1"}
    assert spots["banker"]["pays"] == {"traditional": "0.95:1", "no_commission": "1:1 · 6 → 1:2"}
    assert b'data-pays-for="tie">9:1<' in content


def test_the_chip_rack_comes_from_the_tables_limits(client, db):
    limits = {t: {"min": "100.00", "max": "50000.00"} for t in ("player", "banker", "tie")}
    table = make_table("High", make_variant("High", limits=limits, pb_difference_limit="50000.00"))
    config = _config(client.get(f"/tables/{table.id}/").content)
    assert config["chips"] == [100, 500, 1000, 5000, 10000, 25000]
    assert [spot["type"] for spot in config["spots"] if spot["offered"]] == ["player", "banker", "tie"]


@pytest.mark.parametrize("lang", ["en", "ru", "vi", "pt", "fa", "hi"])
def test_limits_are_written_in_the_american_format_in_every_language(client, table, lang):
    client.cookies["django_language"] = lang
    content = client.get(f"/tables/{table.id}/").content.decode()
    assert "1.00 – 5,000.00" in content
    assert "5000,00" not in content
    assert "5 000" not in content


def test_the_favicon_is_served_from_static(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("casino/favicon.svg")
    assert client.get(response["Location"]).status_code == 200


def test_the_script_catalogue_answers_in_the_players_language(client, db):
    response = client.get("/jsi18n/")
    assert response.status_code == 200
    assert b"gettext" in response.content


def test_the_first_render_shows_the_current_rounds_own_terms_after_the_variant_changed(client, table):
    """The page's first render is the round's terms, as the snapshot then draws them: never the variant's odds
    or limits of now over a round that opened with others."""
    make_round(table)  # opens with Tie 8:1, Tie 1.00 – 5,000.00
    table.variant.pays_tie = Decimal(9)
    table.variant.save()
    table.variant.bets.filter(bet_type="tie").update(max_stake=Decimal("100.00"))
    content = client.get(f"/tables/{table.id}/").content
    spots = {spot["type"]: spot for spot in _config(content)["spots"]}
    assert spots["tie"]["pays"]["traditional"] == "8:1"
    assert spots["tie"]["max"] == "5000.00"
    assert b'data-pays-for="tie">8:1<' in content
    assert b'data-pays-for="tie">9:1<' not in content
    # With no round yet, the next round's terms: the variant's now.
    other = make_table("Baccarat 2", table.variant)
    content = client.get(f"/tables/{other.id}/").content
    assert b'data-pays-for="tie">9:1<' in content
