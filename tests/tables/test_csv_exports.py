"""One CSV writer for every export (baccarat_site.csvexport): the floor's tables and players reports, the
admin's bets and the player's bet record all escape a formula-looking name the same way, and keep numbers
(negative ones too) plain."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from baccarat_site import csvexport
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

NAMES = ["=cmd|' /C calc'!A0", "@A1+1", "-2+3", "+1", "\tx", "\rx", '=HYPERLINK("http://x")']


def rows_of(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.DictReader(io.StringIO(body.decode(), newline="")))


@pytest.mark.parametrize("name", NAMES)
def test_every_export_escapes_a_formula_looking_name_the_same_way(client, name):
    player = make_player(name)  # sign-up allows such usernames; operators may name a table so too
    table = fast_table(name, betting_seconds=60)
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(player, round_.pk, ("player", "10.00"), ("banker", "10.00"))
    drive_to_state(table, clock, "settled")
    escaped = "'" + name  # OWASP: a leading apostrophe, the same in every export

    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    exports = {
        "floor tables": (rows_of(client.get(reverse("admin_floor:floor_tables_report"), {"format": "csv"})), "Table"),
        "floor players": (
            rows_of(client.get(reverse("admin_floor:floor_players_report"), {"format": "csv"})),
            "Player",
        ),
        "admin bets (player)": (rows_of(client.get(reverse("admin:tables_bet_export"))), "player"),
        "admin bets (table)": (rows_of(client.get(reverse("admin:tables_bet_export"))), "table"),
    }
    client.force_login(player)
    exports["bet record"] = (rows_of(client.get("/bets/export.csv")), "table")

    for export, (rows, column) in exports.items():
        assert rows, export
        assert {row[column] for row in rows} == {escaped}, export
        # No cell anywhere holds the name as it was typed.
        assert all(cell != name for row in rows for cell in row.values()), export

    # Numbers stay numbers, negative ones included: one of the two even-money bets lost (unless a tie pushed).
    record = exports["bet record"][0]
    nets = [row["net"] for row in record]
    assert all(Decimal(n) == Decimal(n.strip()) for n in nets)
    assert any(n.startswith("-") for n in nets) or {row["result"] for row in record} <= {"push", "won"}
    players = exports["floor players"][0]
    assert all(Decimal(row["Closing balance"]) >= 0 for row in players)


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        (None, ""),
        (Decimal("-25.00"), "-25.00"),  # a number, computed by us: plain, so a spreadsheet sums it
        (Decimal("1234.5"), "1234.5"),
        (Decimal("1E+2"), "100"),
        (-3, "-3"),
        (True, "true"),
        ("-25.00", "'-25.00"),  # text that looks numeric is still text (a username "-25.00")
        ("-2+3", "'-2+3"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        (date(2026, 1, 2), "2026-01-02"),
        (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "2026-01-02T03:04:05+00:00"),
    ],
)
def test_a_cell_is_escaped_when_it_is_text_starting_with_a_formula_sign(value, cell):
    assert csvexport.cell(value) == cell
    if isinstance(value, str):
        assert csvexport.text(value) == cell
