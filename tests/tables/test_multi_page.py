"""/multi/: which tables the page shows (?t=…, at most four, open or paused ones), what it says about the rest,
and that no query string can make it fail."""

from __future__ import annotations

import re

import pytest

from tables.models import Table
from tests.factories import make_table, make_user, make_variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def tables():
    variant = make_variant("Baccarat")
    return [make_table(f"Table {n}", variant) for n in range(1, 7)]


def shown(response) -> list[int]:
    """The ids of the tables the page renders, in order."""
    return [int(i) for i in re.findall(r'<section class="mt table-page" id="mt-(\d+)"', response.content.decode())]


def problems(response) -> str:
    content = response.content.decode()
    if 'id="problems"' not in content:
        return ""
    start = content.index('id="problems"')
    return content[start : content.index("</ul>", start)]


def test_without_a_choice_the_page_shows_the_first_four_open_tables(client, tables):
    tables[0].status = Table.Status.CLOSED
    tables[0].save()
    tables[2].status = Table.Status.PAUSED
    tables[2].save()
    response = client.get("/multi/")
    assert response.status_code == 200
    assert shown(response) == [tables[1].pk, tables[3].pk, tables[4].pk, tables[5].pk]
    assert problems(response) == ""


def test_the_tables_chosen_in_the_query_string_are_shown_in_that_order_each_once(client, tables):
    response = client.get(f"/multi/?t={tables[4].pk}&t={tables[1].pk}&t={tables[4].pk}")
    assert response.status_code == 200
    assert shown(response) == [tables[4].pk, tables[1].pk]
    assert problems(response) == ""


def test_each_table_gets_its_own_config_socket_root_and_compact_board(client, tables):
    client.force_login(make_user())
    content = client.get(f"/multi/?t={tables[0].pk}&t={tables[1].pk}").content.decode()
    for table in tables[:2]:
        assert f'id="table-config-{table.pk}"' in content
        assert f'data-table-id="{table.pk}"' in content
        assert f'href="/tables/{table.pk}/"' in content
    # Player, Banker, Tie and both pairs on each table; one shared rack and one balance for the page.
    assert content.count('<button type="button" class="spot spot-') == 10
    for bet_type in ("player", "banker", "tie", "player_pair", "banker_pair"):
        assert content.count(f'data-type="{bet_type}"') == 2
    assert content.count('data-el="confirm"') == 2
    assert content.count('id="chips"') == 1
    assert content.count('id="balance"') == 1
    # No id is repeated between the tables.
    ids = re.findall(r' id="([^"]+)"', content)
    assert len(ids) == len(set(ids))


def test_bad_ids_get_a_clear_message_and_never_a_500(client, tables):
    response = client.get(f"/multi/?t=abc&t=-3&t=99999999&t={'9' * 40}&t=&t={tables[2].pk}")
    assert response.status_code == 200
    assert shown(response) == [tables[2].pk]
    said = problems(response)
    assert "“abc” is not a table number." in said
    assert "“-3” is not a table number." in said
    assert "There is no table 99999999." in said
    assert said.count("is not a table number") == 4  # the 40 nines and the empty one too


def test_ids_that_only_look_like_digits_are_no_table_number_not_a_500(client, tables):
    # str.isdigit() says yes to "²" and "①" (int() then failed: a 500) and int() read "٣" as 3.
    digits = "9" * 5000
    response = client.get(f"/multi/?t=²&t=①&t=٣&t={digits}&t={tables[1].pk}")
    assert response.status_code == 200
    assert shown(response) == [tables[1].pk]
    said = problems(response)
    for value in ("²", "①", "٣"):
        assert f"“{value}” is not a table number." in said
    assert said.count("is not a table number") == 4


def test_more_than_four_tables_shows_the_first_four_and_says_so(client, tables):
    query = "&".join(f"t={t.pk}" for t in tables)
    response = client.get("/multi/?" + query)
    assert response.status_code == 200
    assert shown(response) == [t.pk for t in tables[:4]]
    assert "At most four tables at once" in problems(response)


def test_a_closed_table_is_named_as_closed_and_left_out(client, tables):
    tables[1].status = Table.Status.CLOSED
    tables[1].save()
    tables[3].status = Table.Status.PAUSED
    tables[3].save()
    response = client.get(f"/multi/?t={tables[1].pk}&t={tables[3].pk}")
    assert shown(response) == [tables[3].pk]  # a paused table stays: it resumes shortly
    assert "Table 2 is closed." in problems(response)
    # The picker offers only tables that are not closed.
    content = response.content.decode()
    assert f'name="t" value="{tables[1].pk}"' not in content
    assert f'name="t" value="{tables[3].pk}"' in content


def test_nothing_usable_asked_falls_back_to_the_open_tables_and_says_so(client, tables):
    response = client.get("/multi/?t=0")
    assert shown(response) == [t.pk for t in tables[:4]]
    said = problems(response)
    assert "There is no table 0." in said
    assert "Showing the first open tables instead." in said


def test_with_no_open_table_the_page_says_so(client, db):
    response = client.get("/multi/?t=5")
    assert response.status_code == 200
    assert shown(response) == []
    assert "No table is open right now." in response.content.decode()


def test_a_watcher_sees_the_tables_and_is_invited_to_log_in(client, tables):
    response = client.get("/multi/")
    content = response.content.decode()
    assert "Log in to bet" in content
    assert 'data-el="confirm"' not in content
    assert 'id="chips"' not in content
