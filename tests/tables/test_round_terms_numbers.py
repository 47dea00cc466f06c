"""Numbers that stay right: every round is priced with its own terms (the paytable it opened with and its
shoe's deck count), never with what the table's variant says now.

- The tables report's theoretical hold of a settled day does not move when the variant is edited later.
- A day mixing two terms prices each round with its own.
- The live floor's worst-case exposure and the deck count shown to players follow the current shoe after a
  mid-shoe switch to a one-deck variant.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import timezone

from tables.engine import DEFAULT_PAYTABLE, house_edges
from tables.models import Shoe, Table, Variant
from tables.selectors import reports
from tables.selectors.lobby import lobby_tiles
from tables.selectors.tables import table_snapshot
from tests.factories import make_user, make_variant
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

FLOOR = "admin_floor:floor_live"
TABLES = "admin_floor:floor_tables_report"


@pytest.fixture
def operator(client):
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))


@pytest.fixture(autouse=True)
def _within_one_day(clock) -> None:
    """Each test plays its rounds on the state machine's own clock, minutes past the real now, and reads one UTC
    day of the tables report: in the last hour before midnight those rounds would fall on two days (a CI run at
    23:50 UTC). Then every ``timezone.now()`` moves to 00:30 the next day."""
    now = timezone.now()
    if now.hour == 23:
        clock.move(
            seconds=(now.replace(hour=0, minute=30, second=0, microsecond=0) + timedelta(days=1) - now).total_seconds()
        )


def one_deck_variant(name: str = "Single deck") -> Variant:
    return make_variant(name, decks=1, cut_min=6, cut_max=13, paytable={"tie": "9"}, allow_player_advantage=True)


def settle(table: Table, clock: Clock, user, *bets: tuple[str, str], mode: str = "traditional"):
    round_ = drive_to_state(table, clock, "betting")
    place(user, round_.pk, *bets, mode=mode)
    drive_to_state(table, clock, "settled")
    return round_


def expected_of(stakes: dict[str, str], variant_decks: int, paytable) -> Fraction:
    edges = house_edges(decks=variant_decks, paytable=paytable)
    return sum((Fraction(Decimal(a)) * edges[t] for t, a in stakes.items()), Fraction(0))


def today_row() -> reports.TableDay:
    [row] = reports.table_day_report(date_from=reports.utc_today(), date_to=reports.utc_today())
    return row


def test_a_settled_day_s_theoretical_hold_does_not_move_when_the_variant_is_edited(client, operator):
    table = fast_table("Main", betting_seconds=60)
    alice = make_player("alice", "5000.00")
    settle(table, Clock(), alice, ("player", "100.00"), ("tie", "50.00"), ("banker", "40.00"))
    before = today_row().theoretical_hold_pct
    page_before = client.get(reverse(TABLES)).context["rows"]
    assert before is not None

    # The operator pays Tie 9:1 and moves the variant to one deck after the day was played.
    Variant.objects.filter(pk=table.variant_id).update(pays_tie=9, decks=1, cut_min=6, cut_max=13)

    assert today_row().theoretical_hold_pct == before
    assert client.get(reverse(TABLES)).context["rows"] == page_before
    # Priced with the terms it was played under: 8 decks, Tie 8:1.
    variant = Variant.objects.get(pk=table.variant_id)
    assert variant.decks == 1
    played = expected_of({"player": "100.00", "tie": "50.00", "banker": "40.00"}, 8, DEFAULT_PAYTABLE)
    assert before == reports.percent(played, Decimal("190.00"))


def test_a_day_mixing_two_terms_prices_each_round_with_its_own(client, operator):
    table = fast_table("Main", betting_seconds=60)
    alice = make_player("alice", "5000.00")
    clock = Clock()
    first = settle(table, clock, alice, ("player", "100.00"), ("tie", "50.00"))
    # Noon: the table moves to a one-deck variant paying Tie 9:1. The next round in the same 8-deck shoe
    # opens with the new paytable; after a new shoe, the one deck too.
    single = one_deck_variant()
    Table.objects.filter(pk=table.pk).update(variant=single)
    table.refresh_from_db()
    second = settle(table, clock, alice, ("tie", "20.00"), ("banker", "30.00"))
    Shoe.objects.filter(table=table, finished_at__isnull=True).update(finished_at=timezone.now())
    third = settle(table, clock, alice, ("tie", "10.00"), ("player", "25.00"))

    first.refresh_from_db()
    second.refresh_from_db()
    third.refresh_from_db()
    assert (first.shoe.decks, second.shoe.decks, third.shoe.decks) == (8, 8, 1)
    assert (first.terms["paytable"]["tie"], second.terms["paytable"]["tie"]) == ("8.00", "9.00")

    nine = single.engine_paytable()
    expected = (
        expected_of({"player": "100.00", "tie": "50.00"}, 8, DEFAULT_PAYTABLE)
        + expected_of({"tie": "20.00", "banker": "30.00"}, 8, nine)
        + expected_of({"tie": "10.00", "player": "25.00"}, 1, nine)
    )
    row = today_row()
    assert row.turnover == Decimal("235.00")
    assert row.expected == expected
    assert row.theoretical_hold_pct == reports.percent(expected, Decimal("235.00"))
    # Not what the variant of now (one deck, Tie 9:1) would say for the whole day.
    now_priced = expected_of({"player": "125.00", "tie": "80.00", "banker": "30.00"}, 1, nine)
    assert row.theoretical_hold_pct != reports.percent(now_priced, Decimal("235.00"))
    totals = reports.table_report_totals([row])
    assert totals.theoretical_hold_pct == row.theoretical_hold_pct


@pytest.fixture
def switched_mid_shoe():
    """A table dealing a six-deck shoe, a Perfect pair and a Player bet open, then switched to one deck."""
    six = make_variant("Six decks", decks=6)
    table = fast_table("Switched", betting_seconds=60, variant=six)
    alice = make_player("alice", "5000.00")
    round_ = drive_to_state(table, Clock(), "betting")
    place(alice, round_.pk, ("perfect_pair", "500.00"), ("player", "10.00"))
    Table.objects.filter(pk=table.pk).update(variant=one_deck_variant())
    return table


def test_the_floor_s_exposure_after_a_mid_shoe_switch_to_one_deck_uses_the_shoe_s_six_decks(
    client, operator, switched_mid_shoe
):
    [row] = client.get(reverse(FLOOR)).context["rows"]

    # Six decks: a perfect pair with Player winning pays 500 × 25 + 10 back on top of the stakes.
    assert row.exposure.net == Decimal("12510.00")
    assert row.exposure.facts.player_perfect_pair or row.exposure.facts.banker_perfect_pair
    # What the one-deck variant would have said (no perfect pair possible): the wrong −490.00.
    one_deck = reports.worst_case_exposure(
        [("perfect_pair", "traditional", Decimal("500.00"), 1), ("player", "traditional", Decimal("10.00"), 1)],
        decks=1,
        paytable=row.table.variant.engine_paytable(),
    )
    assert one_deck.net == Decimal("-490.00")


def test_players_and_the_api_see_the_current_shoe_s_decks_after_a_mid_shoe_switch(client, switched_mid_shoe):
    table = switched_mid_shoe
    fresh = fast_table("Fresh", variant=Variant.objects.get(name="Single deck"))  # no shoe yet: the variant's

    listed = {row["name"]: row["decks"] for row in client.get("/api/tables/").json()}
    assert listed == {"Switched": 6, "Fresh": 1}
    assert client.get(f"/api/tables/{table.pk}/").json()["decks"] == 6
    assert client.get(f"/api/tables/{fresh.pk}/").json()["decks"] == 1
    assert table_snapshot(table.pk)["table"]["decks"] == 6
    assert {tile["name"]: tile["decks"] for tile in lobby_tiles()} == {"Switched": 6, "Fresh": 1}
    assert "6 decks" in client.get(f"/tables/{table.pk}/").content.decode()
    # The table's rules: the shoe's six decks, and its odds (a perfect pair is possible on six decks).
    rules = client.get(f"/tables/{table.pk}/rules/")
    assert rules.context["page"]["decks"] == 6
    assert {t["name"]: t["decks"] for t in client.get("/rules/").context["page"]["tables"]} == listed
