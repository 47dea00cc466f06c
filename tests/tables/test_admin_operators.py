"""Operators set up variants and run tables from the admin: validated paytables with their exact edges,
per-bet limits as rows, and Pause / Resume / Cancel that go through the live-table services, audited."""

from __future__ import annotations

from decimal import Decimal

import pytest
from auditlog.models import LogEntry

from tables.models import Round, Table, Variant
from tests.factories import make_user
from tests.tables.services.rounds_kit import (
    Clock,
    GroupListener,
    balance_of,
    drive_to_state,
    fast_table,
    make_player,
    place,
)

ADD = "/admin/tables/variant/add/"
RULES_PAYS = {
    "pays_player": "1",
    "pays_banker": "0.95",
    "pays_banker_no_commission": "1",
    "pays_banker_no_commission_six": "0.5",
    "pays_tie": "8",
    "pays_player_pair": "11",
    "pays_banker_pair": "11",
    "pays_any_pair": "5",
    "pays_perfect_pair": "25",
    "pays_player_natural": "3.5",
    "pays_banker_natural": "3.5",
    "pays_bonus_natural": "1",
    "pays_bonus_margin_4": "1",
    "pays_bonus_margin_5": "2",
    "pays_bonus_margin_6": "4",
    "pays_bonus_margin_7": "6",
    "pays_bonus_margin_8": "10",
    "pays_bonus_margin_9": "30",
    "pays_lucky_six_two_cards": "12",
    "pays_lucky_six_three_cards": "20",
    "pays_lucky_six_2": "22",
    "pays_lucky_six_3": "50",
}


def variant_form(name: str = "House rules", bets=None, **fields) -> dict[str, str]:
    bets = (
        bets
        if bets is not None
        else [("player", "1", "1000", ""), ("banker", "1", "1000", ""), ("tie", "1", "500", "")]
    )
    data = {
        "name": name,
        "decks": "8",
        "cut_min": "14",
        "cut_max": "26",
        "pb_difference_limit": "1000.00",
        **RULES_PAYS,
        "bets-TOTAL_FORMS": str(len(bets)),
        "bets-INITIAL_FORMS": "0",
        "bets-MIN_NUM_FORMS": "0",
        "bets-MAX_NUM_FORMS": "1000",
    }
    for i, (bet_type, low, high, last) in enumerate(bets):
        data |= {
            f"bets-{i}-bet_type": bet_type,
            f"bets-{i}-min_stake": low,
            f"bets-{i}-max_stake": high,
            f"bets-{i}-last_shoe_round": last,
        }
    return data | {k: str(v) for k, v in fields.items()}


@pytest.fixture
def operator(client, db):
    user = make_user("boss", "boss-pass-123")
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    return user


def errors_of(response) -> str:
    assert response.status_code == 200, "a refused form is shown again with its errors"
    return response.content.decode()


def test_an_operator_creates_a_variant_and_sees_its_exact_edges(client, operator):
    response = client.post(ADD, variant_form(pays_tie="9"))
    assert response.status_code == 302, response.content.decode()[:2000]
    variant = Variant.objects.get(name="House rules")
    assert sorted(variant.limits_dict()["per_type"]) == ["banker", "player", "tie"]
    page = client.get(f"/admin/tables/variant/{variant.pk}/change/").content.decode()
    assert "1.0579%" in page  # Banker, 8 decks
    assert "4.8440%" in page  # Tie at 9:1
    assert "1.4581%" in page  # Banker, No-Commission
    assert "lucky six" not in page.split("exact-odds")[1]  # only the bets the variant offers
    assert LogEntry.objects.get_for_object(variant).filter(actor=operator).exists()


def test_the_add_page_offers_every_bet_with_the_rules_limits_and_cut_offs(client, operator):
    page = client.get(ADD).content.decode()
    assert page.count('name="bets-') >= 14 * 4
    assert 'value="lucky_six_3" selected' in page


def test_a_paytable_with_a_player_advantage_is_refused_unless_the_operator_overrides(client, operator):
    page = errors_of(client.post(ADD, variant_form(pays_player_pair="30", pays_banker_pair="30")))
    assert "player advantage" in page
    assert "player_pair" in page
    assert not Variant.objects.filter(name="House rules").exists()
    response = client.post(ADD, variant_form(pays_player_pair="30", pays_banker_pair="30", allow_player_advantage="on"))
    assert response.status_code == 302
    assert Variant.objects.get(name="House rules").pays_player_pair == Decimal(30)


@pytest.mark.parametrize(
    ("bets", "fields", "message"),
    [
        ([("player", "100", "10", "")], {}, "The maximum cannot be below the minimum."),
        ([("dragon", "1", "10", "")], {}, "Select a valid choice"),
        ([("any_pair", "1", "10", "fifty")], {}, "Enter a whole number"),
        ([("player", "1", "10", ""), ("player", "1", "20", "")], {}, "Please correct the duplicate data"),
        ([("tie", "0", "10", "")], {}, "greater than or equal to 0.01"),
        ([], {"pays_tie": "7"}, "Select a valid choice"),
        ([], {"decks": "9"}, "less than or equal to 8"),
        ([], {"cut_min": "30", "cut_max": "20"}, "cannot be fewer than the fewest"),
        ([], {"pays_banker": "abc"}, "Enter a number"),
        ([], {"pays_bonus_margin_9": "-1"}, "greater than or equal to 0.01"),
    ],
)
def test_invalid_settings_are_refused_with_a_message_and_nothing_is_saved(client, operator, bets, fields, message):
    data = variant_form(bets=bets or None, **fields)
    page = errors_of(client.post(ADD, data))
    assert message in page
    assert not Variant.objects.filter(name="House rules").exists()


def test_a_tables_status_is_shown_but_never_edited_directly(client, operator):
    table = fast_table()
    page = client.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
    assert 'name="status"' not in page
    assert f"/admin/tables/table/{table.pk}/pause/" in page
    client.post(
        f"/admin/tables/table/{table.pk}/change/",
        {
            "name": table.name,
            "variant": table.variant_id,
            "status": "paused",
            "betting_seconds": 1,
            "deal_interval_ms": 10,
            "result_seconds": 0,
            "settle_delay_ms": 0,
        },
    )
    assert Table.objects.get(pk=table.pk).status == "open"


@pytest.mark.django_db(transaction=True)
def test_pause_and_resume_from_the_admin_and_the_round_carries_on(client, operator):
    table = fast_table()
    clock = Clock()
    alice = make_player("alice", "100.00")
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    drive_to_state(table, clock, "dealing")
    assert client.post(f"/admin/tables/table/{table.pk}/pause/", {"reason": ""}).status_code == 200  # reason required
    assert Table.objects.get(pk=table.pk).status == "open"

    client.post(f"/admin/tables/table/{table.pk}/pause/", {"reason": "Card scanner check"})
    table.refresh_from_db()
    round_.refresh_from_db()
    assert (table.status, round_.state) == ("paused", "paused")

    client.post(f"/admin/tables/table/{table.pk}/resume/", {"reason": "Scanner fine"})
    assert Table.objects.get(pk=table.pk).status == "open"
    settled = drive_to_state(table, clock, "settled")
    assert settled.pk == round_.pk
    actions = [e.additional_data["action"] for e in LogEntry.objects.get_for_object(table).filter(actor=operator)]
    assert actions.count("table.pause") == 1
    assert actions.count("table.resume") == 1


@pytest.mark.django_db(transaction=True)
def test_cancel_from_the_admin_refunds_every_stake_and_tells_the_table(client, operator):
    table = fast_table()
    clock = Clock()
    alice, bob = make_player("alice", "100.00"), make_player("bob", "100.00")
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"), ("tie", "5.00"))
    place(bob, round_.pk, ("banker", "40.00"))
    listener = GroupListener(f"table_{table.pk}")
    response = client.post(f"/admin/tables/table/{table.pk}/cancel-round/", {"reason": "Dealer error"})
    assert response.status_code == 302
    round_.refresh_from_db()
    assert round_.state == "cancelled"
    assert (balance_of(alice), balance_of(bob)) == (Decimal("100.00"), Decimal("100.00"))
    assert "round.cancelled" in listener.types(timeout=1.0)
    entry = LogEntry.objects.get_for_object(round_).get()
    assert (entry.actor, entry.additional_data["reason"]) == (operator, "Dealer error")


@pytest.mark.django_db(transaction=True)
def test_a_round_being_dealt_is_not_cancelled_from_the_admin(client, operator):
    table = fast_table()
    clock = Clock()
    alice = make_player("alice", "100.00")
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    drive_to_state(table, clock, "dealing")
    response = client.post(f"/admin/tables/table/{table.pk}/cancel-round/", {"reason": "Too late"}, follow=True)
    assert "Pause the table first" in response.content.decode()
    assert Round.objects.get(pk=round_.pk).state == "dealing"
    assert balance_of(alice) == Decimal("90.00")


def test_the_changelist_actions_ask_for_a_reason_then_pause_every_selected_table(client, operator):
    first, second = fast_table("One"), fast_table("Two")
    ids = [str(first.pk), str(second.pk)]
    page = client.post("/admin/tables/table/", {"action": "pause_tables", "_selected_action": ids})
    assert page.status_code == 200
    assert b'name="reason"' in page.content
    client.post("/admin/tables/table/", {"action": "pause_tables", "_selected_action": ids, "reason": "Closing"})
    assert set(Table.objects.values_list("status", flat=True)) == {"paused"}
