"""Reports (admin): tables by day and players by day, as HTML and CSV, with validated filters."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tables.engine import house_edges
from tables.models import Bet
from tables.selectors import reports
from tables.services import controls
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, fast_table, make_player, place
from wallets import services as wallet_services

pytestmark = pytest.mark.django_db

TABLES = "admin_floor:floor_tables_report"
PLAYERS = "admin_floor:floor_players_report"


@pytest.fixture
def operator(client):
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))


class _Cells(HTMLParser):
    """The cells of ``<table id="report">``'s body rows, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_report = self._in_body = self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table" and ("id", "report") in attrs:
            self._in_report = True
        elif self._in_report and tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag == "td":
            self._in_cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_cell = False
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._in_report = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.rows[-1][-1] += data.strip()


def html_rows(response) -> list[list[str]]:
    parser = _Cells()
    parser.feed(response.content.decode())
    return parser.rows


def csv_rows(response) -> list[list[str]]:
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def as_csv(cells: list[str]) -> list[str]:
    """An HTML row as the CSV writes it: no thousands separators, empty for "—"."""
    return [c.replace(",", "") if c != "—" else "" for c in cells]


def settled_round(table, clock, *bets_by_player):
    round_ = drive_to_state(table, clock, "betting")
    for user, bets, mode in bets_by_player:
        place(user, round_.pk, *bets, mode=mode)
    drive_to_state(table, clock, "settled")
    return round_


@pytest.fixture
def day_of_play():
    """One table's day: a settled round, a cancelled (refunded) one and one still taking bets."""
    table = fast_table("Main", betting_seconds=60)
    alice, bob = make_player("alice"), make_player("bob")
    clock = Clock()
    settled = settled_round(
        table,
        clock,
        (alice, [("player", "100.00"), ("tie", "10.00")], "traditional"),
        (bob, [("banker", "50.00")], "no_commission"),
        (bob, [("banker", "40.00"), ("player_pair", "5.00")], "traditional"),
    )
    refunded = drive_to_state(table, clock, "betting")
    place(alice, refunded.pk, ("player", "300.00"))
    controls.round_cancel(round_id=refunded.pk, reason="test: cancelled")
    live = drive_to_state(table, clock, "betting")
    place(bob, live.pk, ("banker", "70.00"))
    return {"table": table, "settled": settled, "refunded": refunded, "live": live, "alice": alice, "bob": bob}


def test_turnover_counts_the_day_s_settled_bets_and_ggr_is_turnover_minus_payouts(client, operator, day_of_play):
    settled = day_of_play["settled"]
    bets = list(Bet.objects.filter(round=settled))
    assert Bet.objects.filter(round=day_of_play["refunded"], outcome__status="refunded").count() == 1
    turnover = sum(b.amount for b in bets)
    payouts = sum(b.payout for b in bets)
    assert turnover == Decimal("205.00")

    response = client.get(reverse(TABLES))

    assert response.status_code == 200
    [row] = reports.table_day_report(date_from=reports.utc_today(), date_to=reports.utc_today())
    assert (row.table_name, row.day, row.rounds, row.bets) == ("Main", reports.utc_today(), 1, 5)
    assert row.turnover == turnover  # the refunded 300.00 and the open 70.00 are not turnover
    assert row.payouts == payouts
    assert row.ggr == turnover - payouts
    assert row.hold_pct == (100 * (turnover - payouts) / turnover).quantize(Decimal("0.01"))
    # Theoretical hold: the stake-weighted exact house edges, Banker priced by its mode.
    variant = day_of_play["table"].variant
    edges = house_edges(decks=variant.decks, paytable=variant.engine_paytable())
    weighted = (
        100 * edges["player"]
        + 10 * edges["tie"]
        + 50 * edges["banker_no_commission"]
        + 40 * edges["banker"]
        + 5 * edges["player_pair"]
    ) / 205
    assert abs(Fraction(row.theoretical_hold_pct) - 100 * weighted) <= Fraction(1, 200)
    assert edges["banker_no_commission"] != edges["banker"]

    [cells] = html_rows(response)
    assert as_csv(cells) == [
        reports.utc_today().isoformat(),
        "Main",
        "1",
        "5",
        f"{turnover:.2f}",
        f"{payouts:.2f}",
        f"{turnover - payouts:.2f}",
        f"{row.hold_pct:.2f}",
        f"{row.theoretical_hold_pct:.2f}",
    ]


def test_the_tables_csv_has_a_header_and_the_html_figures(client, operator, day_of_play):
    other = fast_table("Second", betting_seconds=60)
    carol = make_player("carol", "5000.00")
    settled_round(other, Clock(), (carol, [("banker", "1234.50"), ("tie", "20.00")], "traditional"))

    html = client.get(reverse(TABLES))
    exported = client.get(reverse(TABLES), {"format": "csv"})

    header, *rows = csv_rows(exported)
    assert header == [
        "Date",
        "Table",
        "Rounds settled",
        "Bets",
        "Turnover",
        "Payouts",
        "GGR",
        "Hold %",
        "Theoretical hold %",
    ]
    assert len(rows) == 2
    assert rows == [as_csv(cells) for cells in html_rows(html)]
    second = next(r for r in rows if r[1] == "Second")
    assert second[4] == "1254.50"  # plain, no thousands separator
    assert "1,254.50" in html.content.decode()


def test_the_table_filter_keeps_one_table(client, operator, day_of_play):
    other = fast_table("Second", betting_seconds=60)
    carol = make_player("carol")
    settled_round(other, Clock(), (carol, [("player", "10.00")], "traditional"))

    response = client.get(reverse(TABLES), {"table": other.pk, "format": "csv"})

    _header, *rows = csv_rows(response)
    assert [r[1] for r in rows] == ["Second"]
    assert rows[0][4] == "10.00"


def test_a_range_before_the_play_is_empty(client, operator, day_of_play):
    last_week = reports.utc_today() - timedelta(days=7)
    response = client.get(reverse(TABLES), {"date_from": last_week - timedelta(days=3), "date_to": last_week})
    assert response.status_code == 200
    assert response.context["row_count"] == 0
    assert len(csv_rows(client.get(reverse(TABLES), {"date_to": last_week, "format": "csv"}))) == 1  # the header


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"date_from": "2024-13-45"}, "date_from"),
        ({"date_to": "yesterday"}, "date_to"),
        ({"date_from": "2024-05-02", "date_to": "2024-05-01"}, "__all__"),
        ({"date_from": "2020-01-01", "date_to": "2024-01-01"}, "__all__"),
        ({"table": "not-a-table"}, "table"),
        ({"date_from": "2024-13-45", "format": "csv"}, "date_from"),
        # Days with no next midnight (date.max), or before any play: a form error, never a 500.
        ({"date_from": "9999-12-31", "date_to": "9999-12-31"}, "date_to"),
        ({"date_from": "9999-12-31", "date_to": "9999-12-31", "format": "csv"}, "date_to"),
        ({"date_to": "9999-12-31"}, "date_to"),
        ({"date_from": "9999-12-31"}, "date_from"),
        ({"date_from": "0001-01-01", "date_to": "0001-01-01"}, "date_from"),
        ({"date_to": "0001-01-01", "format": "csv"}, "date_to"),
        ({"date_from": "1999-12-31", "date_to": "2000-01-02"}, "date_from"),
        ({"date_from": "9998-12-30", "date_to": "9999-01-01"}, "date_to"),
        ({"date_from": "2024-05-02", "date_to": "2024-05-01", "format": "csv"}, "__all__"),
        ({"date_from": "2020-01-01", "date_to": "2024-01-01", "format": "csv"}, "__all__"),
    ],
)
@pytest.mark.parametrize("url", [TABLES, PLAYERS])
def test_bad_filters_give_a_form_error_not_a_server_error(client, operator, url, params, field):
    if url == PLAYERS and field == "table":
        params = {"date_from": "2024-02-30"}
        field = "date_from"

    response = client.get(reverse(url), params)

    # The page with the form's errors; asked for the CSV, the same page as a 400.
    assert response.status_code == (400 if params.get("format") == "csv" else 200)
    assert response["Content-Type"].startswith("text/html")
    assert field in response.context["form"].errors
    assert 'class="errorlist' in response.content.decode()


@pytest.mark.parametrize("url", [TABLES, PLAYERS])
@pytest.mark.parametrize("output", ["html", "csv"])
def test_the_first_and_last_supported_days_are_reported(client, operator, url, output):
    for params in (
        {"date_from": "9998-12-31", "date_to": "9998-12-31"},
        {"date_to": "9998-12-31"},
        {"date_from": "2000-01-01", "date_to": "2000-01-01"},
        {"date_to": "2000-01-02"},  # "From" defaults to a week before, kept within the first day
    ):
        query = {**params, "format": "csv"} if output == "csv" else params
        response = client.get(reverse(url), query)
        assert response.status_code == 200, params
        if output == "csv":
            assert len(csv_rows(response)) == 1  # the header
        else:
            assert not response.context["form"].errors


def test_day_range_refuses_days_it_cannot_bound():
    with pytest.raises(ValueError, match="report days"):
        reports.day_range(reports.LAST_DAY, date(9999, 12, 31))
    assert reports.day_range(reports.FIRST_DAY, reports.LAST_DAY)[1] == datetime(9999, 1, 1, tzinfo=UTC)


def test_players_by_day_open_from_the_ledger_before_the_day(client, operator, day_of_play, clock):
    alice, bob = day_of_play["alice"], day_of_play["bob"]
    today = reports.utc_today()
    yesterday = today - timedelta(days=1)
    # A player funded yesterday (the ledger stamps entries with timezone.now()).
    with clock.frozen_at(datetime.combine(yesterday, datetime.min.time(), UTC)):
        dave = make_player("dave", "250.00")
    wallet_services.wallet_deposit(user=dave, amount=Decimal("50.00"), reason="test: top-up")
    settled_round(
        fast_table("Third", betting_seconds=60), Clock(), (dave, [("player", "20.00"), ("tie", "5.00")], "traditional")
    )

    response = client.get(reverse(PLAYERS), {"date_from": yesterday.isoformat(), "date_to": today.isoformat()})

    assert response.status_code == 200
    rows = {(r.username, r.day): r for r in reports.player_day_report(date_from=yesterday, date_to=today)}
    assert set(rows) == {("alice", today), ("bob", today), ("dave", yesterday), ("dave", today)}
    dave_before, dave_today = rows[("dave", yesterday)], rows[("dave", today)]
    assert (dave_before.opening, dave_before.other, dave_before.closing) == (
        Decimal("0.00"),
        Decimal("250.00"),
        Decimal("250.00"),
    )
    assert dave_today.opening == Decimal("250.00")
    assert dave_today.other == Decimal("50.00")
    assert dave_today.stakes == Decimal("25.00")
    assert dave_today.closing == balance_of(dave)

    settled = day_of_play["settled"]
    alice_today = rows[("alice", today)]
    assert alice_today.opening == Decimal("0.00")
    assert alice_today.other == Decimal("1000.00")  # funded today
    assert alice_today.stakes == Decimal("410.00")  # 110.00 settled + 300.00 refunded
    assert alice_today.refunds == Decimal("300.00")
    assert alice_today.payouts == sum(b.payout for b in Bet.objects.filter(round=settled, user=alice))
    assert alice_today.closing == balance_of(alice)
    assert rows[("bob", today)].closing == balance_of(bob)  # 70.00 still staked on the live round

    # Today alone: dave's opening balance comes from the entries before the day.
    [only_today] = reports.player_day_report(date_from=today, date_to=today, username="dave")
    assert only_today.opening == Decimal("250.00")
    assert only_today.closing == balance_of(dave)

    exported = client.get(
        reverse(PLAYERS), {"date_from": yesterday.isoformat(), "date_to": today.isoformat(), "format": "csv"}
    )
    header, *csv_data = csv_rows(exported)
    assert header == [
        "Date",
        "Player",
        "Opening balance",
        "Stakes",
        "Payouts",
        "Refunds",
        "Deposits and other",
        "Closing balance",
    ]
    assert csv_data == [as_csv(cells) for cells in html_rows(response)]
    assert [yesterday.isoformat(), "dave", "0.00", "0.00", "0.00", "0.00", "250.00", "250.00"] in csv_data


def test_the_player_filter_keeps_one_player(client, operator, day_of_play):
    response = client.get(reverse(PLAYERS), {"player": "bob", "format": "csv"})
    _header, *rows = csv_rows(response)
    assert [r[1] for r in rows] == ["bob"]
    assert rows[0][3] == "165.00"  # 50 + 40 + 5 settled, 70 on the live round
