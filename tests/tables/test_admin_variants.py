"""Variant and table settings in the admin, through the real change forms as a browser submits them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.admin.models import LogEntry as AdminLogEntry
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from baccarat_site import roles
from tables.models import Table, Variant, VariantBet
from tables.services.variants import variant_create
from tests.factories import make_staff, make_table, make_user, make_variant
from tests.tables.browser_form import form_data
from tests.tables.services.rounds_kit import fast_table
from tests.tables.test_admin_operators import variant_form


@pytest.fixture
def operator(client, db):
    user = make_user("boss", "boss-pass-123")
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    return user


def change_url(variant: Variant) -> str:
    return f"/admin/tables/variant/{variant.pk}/change/"


def test_a_9_to_1_tie_is_shown_selected_and_saved_back_unchanged(client, operator):
    variant = make_variant("Nine tie", paytable={"tie": 9})
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")

    page = client.get(change_url(variant)).content.decode()
    data, selected = form_data(page, "variant_form")
    assert selected["pays_tie"], "the stored Tie odds must pre-select their option"
    assert data["pays_tie"] == "9.00"

    response = client.post(change_url(variant), data | {"_save": "Save"})
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")
    for entry in LogEntry.objects.get_for_object(variant).filter(action=LogEntry.Action.UPDATE):
        assert "pays_tie" not in (entry.changes_dict or {}), entry.changes_dict


def test_a_tie_posted_as_a_whole_number_is_stored_and_audited_as_its_two_place_value(client, operator):
    variant = make_variant("Eight tie")
    data, _ = form_data(client.get(change_url(variant)).content.decode(), "variant_form")
    client.post(change_url(variant), data | {"pays_tie": "9", "_save": "Save"})
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")
    updates = LogEntry.objects.get_for_object(variant).filter(action=LogEntry.Action.UPDATE)
    assert [e.changes_dict["pays_tie"] for e in updates if "pays_tie" in e.changes_dict] == [["8.00", "9.00"]]


def test_whole_numbers_typed_for_odds_and_stakes_are_audited_with_their_two_places(client, operator):
    variant = make_variant("Typed", limits={"player": (1, 100)})
    data, _ = form_data(client.get(change_url(variant)).content.decode(), "variant_form")
    typed = {"pays_player_pair": "11", "pays_banker_pair": "12", "bets-0-max_stake": "100", "bets-0-min_stake": "2"}
    assert client.post(change_url(variant), data | typed | {"_save": "Save"}).status_code == 302
    changes: dict = {}
    for entry in LogEntry.objects.filter(action=LogEntry.Action.UPDATE, content_type__app_label="tables"):
        changes |= entry.changes_dict
    assert changes == {
        "pays_banker_pair": ["11.00", "12.00"],
        "min_stake": ["1.00", "2.00"],
    }


def test_the_add_page_preselects_the_default_tie_odds(client, operator):
    _data, selected = form_data(client.get("/admin/tables/variant/add/").content.decode(), "variant_form")
    assert selected["pays_tie"]


# ── unplayable settings are refused, with a message, and nothing changes ──────────────────────────────────

ADD = "/admin/tables/variant/add/"


def refused(response) -> str:
    assert response.status_code == 200, "a refused form is shown again with its errors"
    return response.content.decode()


def snapshot(variant: Variant) -> tuple:
    fresh = Variant.objects.get(pk=variant.pk)
    rows = sorted(fresh.bets.values_list("bet_type", "min_stake", "max_stake", "last_shoe_round"))
    return fresh.decks, fresh.pb_difference_limit, fresh.paytable_dict(), rows


def browser_post(client, url: str, form_id: str, **changes: str):
    """Post the change form as the browser shows it, with ``changes`` typed in."""
    data, _ = form_data(client.get(url).content.decode(), form_id)
    return client.post(url, data | changes | {"_save": "Save"})


def test_a_variant_without_any_offered_bet_is_refused_on_add(client, operator):
    page = refused(client.post(ADD, variant_form(bets=[])))
    assert "Offer at least one bet" in page
    assert not Variant.objects.filter(name="House rules").exists()


def test_deleting_every_offered_bet_of_a_variant_is_refused_and_keeps_them(client, operator):
    variant = make_variant("Three bets", limits={t: {"min": "1", "max": "100"} for t in ("player", "banker", "tie")})
    before = snapshot(variant)
    url = change_url(variant)
    deletes = {f"bets-{i}-DELETE": "on" for i in range(3)}
    page = refused(browser_post(client, url, "variant_form", **deletes))
    assert "Offer at least one bet" in page
    assert snapshot(variant) == before


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ("0", "greater than or equal to 0.01"),
        ("0.50", "The Player/Banker difference limit (0.50) is below the Banker minimum (5.00)"),
        ("4.99", "Set it to at least 5.00"),
        ("99999999999.99", "less than or equal to 9999999999.99"),
    ],
)
def test_a_difference_limit_no_minimum_bet_fits_in_or_beyond_any_stake_is_refused(client, operator, limit, message):
    bets = [("player", "2", "1000", ""), ("banker", "5", "1000", ""), ("tie", "1", "500", "")]
    page = refused(client.post(ADD, variant_form(bets=bets, pb_difference_limit=limit)))
    assert message in page
    assert not Variant.objects.filter(name="House rules").exists()


def test_a_difference_limit_equal_to_the_largest_player_or_banker_minimum_is_accepted(client, operator):
    bets = [("player", "2", "1000", ""), ("banker", "5", "1000", "")]
    response = client.post(ADD, variant_form(bets=bets, pb_difference_limit="5.00"))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Variant.objects.get(name="House rules").pb_difference_limit == Decimal("5.00")


def test_lowering_the_difference_limit_of_a_variant_below_its_minimum_is_refused(client, operator):
    variant = make_variant("Ten minimum", limits={"player": {"min": "10", "max": "100"}})
    before = snapshot(variant)
    page = refused(browser_post(client, change_url(variant), "variant_form", pb_difference_limit="9.99"))
    assert "below the Player minimum (10.00)" in page
    assert snapshot(variant) == before


def test_perfect_pair_from_one_deck_is_refused_naming_the_bet_and_the_decks(client, operator):
    bets = [("player", "1", "100", ""), ("perfect_pair", "1", "100", "50")]
    page = refused(client.post(ADD, variant_form(bets=bets, decks="1", cut_min="6", cut_max="13")))
    assert "Perfect Pair can never win with 1 deck (its exact chance is 0)" in page
    assert not Variant.objects.filter(name="House rules").exists()
    # the same variant without it is accepted
    response = client.post(ADD, variant_form(bets=bets[:1], decks="1", cut_min="6", cut_max="13"))
    assert response.status_code == 302


def test_going_down_to_one_deck_while_perfect_pair_is_offered_is_refused(client, operator):
    variant = make_variant("Eight decks")  # every bet offered
    before = snapshot(variant)
    page = refused(browser_post(client, change_url(variant), "variant_form", decks="1", cut_min="6", cut_max="13"))
    assert "Perfect Pair can never win with 1 deck" in page
    assert snapshot(variant) == before


def test_perfect_pair_from_two_decks_is_accepted(client, operator):
    bets = [("player", "1", "100", ""), ("perfect_pair", "1", "100", "50")]
    response = client.post(ADD, variant_form(bets=bets, decks="2", cut_min="6", cut_max="26"))
    assert response.status_code == 302, response.content.decode()[:3000]


def test_a_refused_variant_field_is_not_reported_again_against_stale_values(client, operator):
    """With decks refused, the formset does not judge the bets by the decks the form did not take."""
    bets = [("player", "1", "100", ""), ("perfect_pair", "1", "100", "50")]
    page = refused(client.post(ADD, variant_form(bets=bets, decks="0")))
    assert "greater than or equal to 1" in page
    assert "can never win" not in page


# ── the service refuses the same ──────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("fields", "key", "message"),
    [
        ({"limits": {}}, "bets", "Offer at least one bet"),
        ({"decks": 1, "cut_min": 6, "cut_max": 13, "limits": {"perfect_pair": (1, 10)}}, "bets", "Perfect Pair"),
        ({"limits": {"banker": (5, 10)}, "pb_difference_limit": Decimal("4.99")}, "pb_difference_limit", "5.00"),
    ],
)
def test_variant_create_refuses_what_the_admin_refuses_and_writes_nothing(db, fields, key, message):
    with pytest.raises(ValidationError) as error:
        variant_create(name="Broken", **fields)
    assert message in " ".join(error.value.message_dict[key])
    assert (Variant.objects.count(), VariantBet.objects.count()) == (0, 0)


def test_variant_create_offers_by_default_every_bet_that_can_win_with_its_decks(db):
    one = make_variant("One deck", decks=1, cut_min=6, cut_max=13)
    eight = make_variant("Eight decks")
    assert "perfect_pair" not in one.limits_dict()["per_type"]
    assert len(one.limits_dict()["per_type"]) == 13
    assert len(eight.limits_dict()["per_type"]) == 14


# ── a table's pace ────────────────────────────────────────────────────────────────────────────────────────


def table_url(table) -> str:
    return f"/admin/tables/table/{table.pk}/change/"


def table_pace(table) -> tuple:
    fresh = Table.objects.get(pk=table.pk)
    return fresh.betting_seconds, fresh.deal_interval_ms, fresh.result_seconds, fresh.settle_delay_ms


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("betting_seconds", "4", "greater than or equal to 5"),
        ("betting_seconds", "121", "less than or equal to 120"),
        ("deal_interval_ms", "2000000000", "less than or equal to 10000"),
        ("deal_interval_ms", "99", "greater than or equal to 100"),
        ("result_seconds", "0", "greater than or equal to 1"),
        ("result_seconds", "61", "less than or equal to 60"),
        ("settle_delay_ms", "10001", "less than or equal to 10000"),
        ("settle_delay_ms", "-1", "greater than or equal to 0"),
    ],
)
def test_a_table_pace_outside_the_playable_range_is_refused(client, operator, field, value, message):
    table = make_table("Paced", make_variant("Paced rules"))
    before = table_pace(table)
    page = refused(browser_post(client, table_url(table), "table_form", **{field: value}))
    assert message in page
    assert table_pace(table) == before


def test_a_table_pace_at_the_edges_of_the_range_is_saved(client, operator):
    table = make_table("Paced", make_variant("Paced rules"))
    for pace in (("5", "100", "1", "0"), ("120", "10000", "60", "10000")):
        fields = dict(
            zip(("betting_seconds", "deal_interval_ms", "result_seconds", "settle_delay_ms"), pace, strict=True)
        )
        response = browser_post(client, table_url(table), "table_form", **fields)
        assert response.status_code == 302, response.content.decode()[:3000]
        assert table_pace(table) == tuple(int(v) for v in pace)


@pytest.mark.parametrize(
    "fields",
    [
        {"betting_seconds": 0},
        {"betting_seconds": 121},
        {"deal_interval_ms": 2_000_000_000},
        {"result_seconds": 61},
        {"settle_delay_ms": 10_001},
    ],
)
def test_the_database_refuses_a_pace_beyond_its_bounds(db, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_table("Too slow", make_variant("Too slow rules"), **fields)


def test_the_database_takes_the_fast_pace_tests_drive_tables_at(db):
    table = fast_table(deal_interval_ms=0)
    assert table_pace(table) == (1, 0, 0, 0)


# ── previewing the exact odds of unsaved settings ─────────────────────────────────────────────────────────


def audit_updates(variant: Variant) -> int:
    return (
        LogEntry.objects.get_for_object(variant).filter(action=LogEntry.Action.UPDATE).count()
        + AdminLogEntry.objects.filter(object_id=str(variant.pk)).count()
    )


def odds_panel(page: str) -> str:
    return page.split('class="exact-odds"')[1].split("</p>")[0] if 'class="exact-odds"' in page else ""


def test_the_change_page_offers_a_preview_button_after_save(client, operator):
    page = client.get(change_url(make_variant("Buttons"))).content.decode()
    assert page.index('name="_save"') < page.index('name="_preview"')


def test_previewing_a_changed_paytable_shows_its_new_edge_and_saves_nothing(client, operator):
    variant = make_variant("Preview me")
    before, url = snapshot(variant), change_url(variant)
    saved_page = client.get(url).content.decode()
    assert "14.3596%" in odds_panel(saved_page)  # Tie at 8:1
    data, _ = form_data(saved_page, "variant_form")

    response = client.post(url, data | {"pays_tie": "9.00", "_preview": "Preview odds"})
    assert response.status_code == 200
    page = response.content.decode()
    panel = odds_panel(page)
    assert "4.8440%" in panel  # Tie at 9:1
    assert "14.3596%" not in panel
    assert "not saved yet" in panel
    assert "errornote" not in page
    assert snapshot(variant) == before
    assert audit_updates(variant) == 0

    # The page keeps the previewed values: saving it now keeps them.
    again, selected = form_data(page, "variant_form")
    assert again["pays_tie"] == "9.00"
    assert selected["pays_tie"]
    assert client.post(url, again | {"_save": "Save"}).status_code == 302
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")


def test_previewing_shows_the_odds_of_the_posted_offered_bets(client, operator):
    variant = make_variant("Few bets", limits={"player": (1, 100), "banker": (1, 100)})
    before, url = snapshot(variant), change_url(variant)
    data, _ = form_data(client.get(url).content.decode(), "variant_form")
    extra = data["bets-TOTAL_FORMS"]  # a row after the blank one the change page offers
    added = {f"bets-{extra}-{k}": v for k, v in {"bet_type": "lucky_six", "min_stake": "1", "max_stake": "10"}.items()}
    added["bets-TOTAL_FORMS"] = str(int(extra) + 1)
    panel = odds_panel(client.post(url, data | added | {"_preview": "Preview odds"}).content.decode())
    assert "lucky six" in panel
    assert "16.6836%" in panel  # Lucky Six's edge, 8 decks
    assert snapshot(variant) == before


def test_the_odds_panel_shows_the_return_to_player_truncated(client, operator):
    variant = make_variant("One deck", decks=1, cut_min=12, cut_max=13)
    panel = odds_panel(client.get(change_url(variant)).content.decode())
    assert "98.9882%" in panel  # one deck's Banker returns 98.98825…%
    assert "98.9883%" not in panel


def test_previewing_a_new_variant_creates_nothing(client, operator):
    assert "Press “Preview odds”" in client.get(ADD).content.decode()
    response = client.post(ADD, variant_form(pays_tie="9", _preview="Preview odds"))
    assert response.status_code == 200
    assert "4.8440%" in odds_panel(response.content.decode())
    assert not Variant.objects.exists()


def test_previewing_invalid_settings_shows_the_errors_and_no_odds(client, operator):
    variant = make_variant("Broken preview")
    before, url = snapshot(variant), change_url(variant)
    data, _ = form_data(client.get(url).content.decode(), "variant_form")
    page = refused(client.post(url, data | {"pays_banker": "abc", "_preview": "Preview odds"}))
    assert "Enter a number" in page
    assert "Correct the errors on this page to see its exact odds." in page
    assert odds_panel(page) == ""
    assert snapshot(variant) == before


def test_an_auditor_reads_the_variant_list_and_a_variant_page_and_changes_nothing(client, db):
    """Auditors hold only view permissions (baccarat_site.roles): the variant pages are theirs to read."""
    variant = make_variant("Audited")
    make_table("Audited table", variant)
    auditor = make_staff("ada", roles.AUDITORS)
    client.force_login(auditor)
    listing = client.get("/admin/tables/variant/")
    assert listing.status_code == 200
    assert "Audited" in listing.content.decode()
    page = client.get(change_url(variant))
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    before = Variant.objects.get(pk=variant.pk).pays_tie
    refused = client.post(change_url(variant), {"name": "Renamed", "pays_tie": "9.00"})
    assert refused.status_code == 403
    assert Variant.objects.get(pk=variant.pk).name == "Audited"
    assert Variant.objects.get(pk=variant.pk).pays_tie == before
