"""The dealer's console pages (tables/views/dealer.py): /dealer/ and /dealer/tables/<id>/ for staff who may deal;
the login page for a signed-out visitor, the 403 page for anyone else, 404 for a table that is not live."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from baccarat_site import roles
from tables.models import Table
from tests.factories import make_staff, make_table, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_table():
    return make_table("Live 1", dealing=Table.Dealing.LIVE)


def test_a_signed_out_visitor_is_sent_to_log_in(client, live_table):
    for url in ("/dealer/", f"/dealer/tables/{live_table.pk}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


def test_a_player_and_a_cashier_get_the_403_page(client, live_table):
    make_user("player")
    make_staff("cashier", roles.CASHIERS)
    for username in ("player", "cashier"):
        client.force_login(get_user_model().objects.get(username=username))
        for url in ("/dealer/", f"/dealer/tables/{live_table.pk}/"):
            response = client.get(url)
            assert response.status_code == 403, (username, url)
            assert b'data-status="403"' in response.content
        assert client.get(f"/api/dealer/tables/{live_table.pk}/").status_code == 403


def test_a_dealer_sees_the_live_tables_and_the_console_with_its_52_card_picker(client, live_table):
    make_table("Shoe table")  # dealt by the server's shoe: not a dealer's table
    dealer = make_staff("dora", roles.DEALERS)
    client.force_login(dealer)
    listing = client.get("/dealer/")
    assert listing.status_code == 200
    assert b"Live 1" in listing.content
    assert b"Shoe table" not in listing.content
    assert f'href="/dealer/tables/{live_table.pk}/"'.encode() in listing.content

    page = client.get(f"/dealer/tables/{live_table.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('class="dc-pick ') == 52
    for code in ("AS", "TD", "7H", "QC", "KC"):
        assert f'data-card="{code}"' in html
    assert 'id="dealer-state"' in html
    assert 'id="dealer-config"' in html
    assert 'id="dc-resume"' not in html
    assert 'id="dc-void"' not in html


def test_a_supervisor_gets_resume_and_void(client, live_table):
    client.force_login(make_staff("sam", roles.SUPERVISORS))
    html = client.get(f"/dealer/tables/{live_table.pk}/").content.decode()
    assert 'id="dc-resume"' in html
    assert 'id="dc-void"' in html


def test_a_table_dealt_by_the_shoe_has_no_console(client):
    table = make_table("Shoe table")
    client.force_login(make_staff("dora", roles.DEALERS))
    assert client.get(f"/dealer/tables/{table.pk}/").status_code == 404
    assert client.get("/dealer/tables/999999/").status_code == 404


def test_the_console_is_translated(client, live_table):
    client.force_login(make_staff("dora", roles.DEALERS))
    client.cookies["django_language"] = "fa"
    html = client.get(f"/dealer/tables/{live_table.pk}/").content.decode()
    assert 'dir="rtl"' in html
    for english in ("Take the shift", "Cut card out", "Call supervisor", "Scan again", "Cards left"):
        assert english not in html, english
