"""The player's pages render for everyone they are meant for, and only for them."""

import pytest

from tests.factories import make_table, make_user, make_variant


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
    assert response.content.count(b'class="spot"') == 14
    assert b"Confirm bets" in response.content


def test_a_bet_type_the_variant_does_not_offer_is_shown_disabled(client, table):
    limits = dict(table.variant.limits)
    del limits["lucky_six_3"]
    table.variant.limits = limits
    table.variant.save()
    client.force_login(make_user())
    content = client.get(f"/tables/{table.id}/").content.decode()
    spot = content[content.index('data-type="lucky_six_3"') :][:80]
    assert "disabled" in spot


def test_a_watcher_sees_the_table_but_is_invited_to_log_in_to_bet(client, table):
    response = client.get(f"/tables/{table.id}/")
    assert response.status_code == 200
    assert b"Log in to bet" in response.content
    assert b"Confirm bets" not in response.content


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
