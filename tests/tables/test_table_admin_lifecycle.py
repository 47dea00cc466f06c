"""A Table operator closes, reopens and retires tables from the admin with a reason, and narrows a table's limits
(never widens them); the round's frozen terms carry the narrowed limits to placement, over REST too."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from baccarat_site.errors import DomainError
from baccarat_site.roles import TABLE_OPERATORS
from tables.models import Table, TableLimit
from tables.selectors.tables import table_detail, table_list, table_minimum_stake
from tables.services import controls
from tests.factories import make_round, make_table, make_user, make_variant
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db


@pytest.fixture
def table_operator(client):
    user = make_user("floor", "floor-pass-123", is_staff=True)
    user.groups.add(Group.objects.get(name=TABLE_OPERATORS))
    client.force_login(user)
    return user


def change_form(table: Table, limits: list[tuple[str, str, str]] = (), **fields: str) -> dict[str, str]:
    """The Table change form as posted, with ``limits`` as inline rows (bet type, min, max)."""
    data = {
        "name": table.name,
        "variant": str(table.variant_id),
        "opens_at": "",
        "closes_at": "",
        "pb_difference_limit": "",
        "betting_seconds": str(table.betting_seconds),
        "deal_interval_ms": str(table.deal_interval_ms),
        "result_seconds": str(table.result_seconds),
        "settle_delay_ms": str(table.settle_delay_ms),
        "dealing": table.dealing,
        "dealer": str(table.dealer_id or ""),
        "video_url": table.video_url,
        "dealer_timeout_seconds": str(table.dealer_timeout_seconds),
        "limits-TOTAL_FORMS": str(len(limits)),
        "limits-INITIAL_FORMS": "0",
        "limits-MIN_NUM_FORMS": "0",
        "limits-MAX_NUM_FORMS": "1000",
        **fields,
    }
    for i, (bet_type, low, high) in enumerate(limits):
        data |= {f"limits-{i}-bet_type": bet_type, f"limits-{i}-min_stake": low, f"limits-{i}-max_stake": high}
    return data


def test_a_table_operator_closes_a_table_at_the_end_of_its_round_with_a_reason(client, table_operator):
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "betting")
    form = client.get(f"/admin/tables/table/{table.pk}/close-round/")
    assert form.status_code == 200
    assert b'name="reason"' in form.content
    assert client.post(f"/admin/tables/table/{table.pk}/close-round/", {"reason": ""}).status_code == 200
    assert Table.objects.get(pk=table.pk).close_after == ""  # no reason, nothing done

    response = client.post(f"/admin/tables/table/{table.pk}/close-round/", {"reason": "End of shift"}, follow=True)

    assert "closes at the end of the current round" in response.content.decode()
    drive(table, clock, lambda: Table.objects.get(pk=table.pk).status == "closed")
    entry = LogEntry.objects.get_for_object(table).get(additional_data__action="table.close_after_round")
    assert (entry.actor, entry.additional_data["reason"]) == (table_operator, "End of shift")

    client.post(f"/admin/tables/table/{table.pk}/retire/", {"reason": "Moved to the VIP room"})
    assert Table.objects.get(pk=table.pk).status == "retired"
    page = client.get(f"/admin/tables/table/{table.pk}/change/").content.decode()
    assert "Un-retire" in page
    client.post(f"/admin/tables/table/{table.pk}/unretire/", {"reason": "Back"})
    client.post(f"/admin/tables/table/{table.pk}/reopen/", {"reason": "Busy night"})
    assert Table.objects.get(pk=table.pk).status == "open"


def test_retiring_an_open_table_from_the_admin_is_refused_with_a_message(client, table_operator):
    table = fast_table()
    response = client.post(f"/admin/tables/table/{table.pk}/retire/", {"reason": "Not yet"}, follow=True)
    assert "close it first" in response.content.decode()
    assert Table.objects.get(pk=table.pk).status == "open"


def test_a_user_without_tables_change_table_cannot_close_a_table(client):
    table = fast_table()
    cashier = make_user("till", "till-pass-123", is_staff=True)
    cashier.groups.add(Group.objects.get(name="Cashiers"))
    client.force_login(cashier)
    response = client.post(f"/admin/tables/table/{table.pk}/close-round/", {"reason": "Mine now"})
    assert response.status_code == 403
    assert Table.objects.get(pk=table.pk).close_after == ""


def test_the_changelist_action_closes_every_selected_table(client, table_operator):
    first, second = fast_table("One"), fast_table("Two")
    ids = [str(first.pk), str(second.pk)]
    data = {"action": "close_tables_after_round", "_selected_action": ids}
    assert b'name="reason"' in client.post("/admin/tables/table/", data).content
    client.post("/admin/tables/table/", data | {"reason": "Closing the floor"})
    assert set(Table.objects.values_list("status", flat=True)) == {"closed"}  # no round was under way


def test_a_table_may_narrow_its_variants_limits_from_the_admin(client, table_operator):
    table = make_table("Narrow")
    response = client.post(
        f"/admin/tables/table/{table.pk}/change/",
        change_form(table, [("player", "5.00", "50.00"), ("tie", "", "20.00")], pb_difference_limit="100.00"),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    assert {(r.bet_type, r.min_stake, r.max_stake) for r in TableLimit.objects.filter(table=table)} == {
        ("player", Decimal("5.00"), Decimal("50.00")),
        ("tie", None, Decimal("20.00")),
    }
    row = next(t for t in table_list() if t["id"] == table.pk)
    assert row["limits"]["player"] == {"min": "5.00", "max": "50.00"}
    assert row["limits"]["tie"] == {"min": "1.00", "max": "20.00"}
    assert row["limits"]["banker"] == {"min": "1.00", "max": "5000.00"}  # untouched: the variant's
    assert row["pb_difference_limit"] == "100.00"


@pytest.mark.parametrize(
    ("rows", "fields", "message"),
    [
        ([("player", "", "6000.00")], {}, "the maximum may not be above 5000.00"),
        ([("player", "0.50", "")], {}, "the minimum may not be below 1.00"),
        ([], {"pb_difference_limit": "9000.00"}, "the variant&#x27;s Player/Banker difference limit is 5000.00"),
        ([("player", "", "")], {}, "Give a minimum, a maximum or both"),
    ],
)
def test_widening_a_variants_limits_is_refused_by_the_admin_form(client, table_operator, rows, fields, message):
    table = make_table("Wide")
    response = client.post(f"/admin/tables/table/{table.pk}/change/", change_form(table, rows, **fields))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not TableLimit.objects.filter(table=table).exists()
    assert Table.objects.get(pk=table.pk).pb_difference_limit is None


def test_a_narrowing_row_for_a_bet_the_variant_does_not_offer_is_refused(client, table_operator):
    variant = make_variant(
        "Main only", limits={"player": {"min": "1", "max": "100"}, "banker": {"min": "1", "max": "100"}}
    )
    table = make_table("Main", variant=variant)
    response = client.post(f"/admin/tables/table/{table.pk}/change/", change_form(table, [("tie", "", "5.00")]))
    assert response.status_code == 200
    assert "does not offer this bet" in response.content.decode()


def test_a_round_opens_with_the_tables_narrowed_limits_and_placement_refuses_above_them():
    table = fast_table()
    TableLimit.objects.create(table=table, bet_type="tie", max_stake=Decimal("10.00"))
    Table.objects.filter(pk=table.pk).update(pb_difference_limit=Decimal("70.00"))
    alice = make_player("alice", "1000.00")
    round_ = drive_to_state(table, Clock(), "betting")

    assert round_.terms["limits"]["per_type"]["tie"] == {"min": "1.00", "max": "10.00"}
    assert round_.terms["limits"]["pb_difference"] == "70.00"
    assert table_detail(table.pk)["current_round"]["limits"]["per_type"]["tie"]["max"] == "10.00"
    place(alice, round_.pk, ("tie", "10.00"))
    with pytest.raises(DomainError) as over:
        place(alice, round_.pk, ("tie", "0.01"))
    assert over.value.code == "above_max"
    with pytest.raises(DomainError) as apart:
        place(alice, round_.pk, ("player", "70.01"))  # the narrowed difference limit binds Player and Banker
    assert apart.value.code == "pb_difference_limit"


def test_a_narrowed_maximum_refuses_a_bet_above_it_through_the_rest_api(db):
    table = make_table("Low max")
    TableLimit.objects.create(table=table, bet_type="tie", min_stake=Decimal("2.00"), max_stake=Decimal("10.00"))
    table = Table.objects.get(pk=table.pk)
    round_ = make_round(table, closes_in=60)
    alice = make_player("alice", "1000.00")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")

    def post(amount: str):
        return client.post(
            f"/api/rounds/{round_.pk}/bets/",
            {"mode": "traditional", "bets": [{"type": "tie", "amount": amount}]},
            format="json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
        )

    over = post("10.01")
    assert over.status_code in (400, 409, 422), over.content
    assert over.json()["code"] == "above_max"
    assert over.json().get("limit") == "10.00"
    under = post("1.50")
    assert under.json()["code"] == "below_min"
    assert post("10.00").status_code == 201


def test_the_rest_table_list_hides_closed_and_retired_tables_and_never_shows_the_operators_reason(db):
    _shown, paused, closed, retired = (fast_table(n) for n in ("Shown", "Paused", "Closed", "Retired"))
    controls.table_pause(table_id=paused.pk, reason="Secret: camera 3 broken")
    for table in (closed, retired):
        controls.table_close(table_id=table.pk, when="round", reason="Secret: short staffed")
    controls.table_retire(table_id=retired.pk, reason="Secret: sold")
    client = APIClient()

    listed = client.get("/api/tables/").json()
    assert [(t["name"], t["status"], t["status_reason"]) for t in listed] == [
        ("Shown", "open", None),
        ("Paused", "paused", "Paused"),
    ]
    assert client.get(f"/api/tables/{closed.pk}/").json()["status_reason"] == "Closed"
    gone = client.get(f"/api/tables/{retired.pk}/")
    assert (gone.status_code, gone.json()["code"]) == (404, "table_not_found")
    assert client.get(f"/tables/{retired.pk}/").status_code == 404
    assert "Secret" not in str(listed) + client.get(f"/api/tables/{closed.pk}/").content.decode()
    assert "Secret" not in client.get("/").content.decode()


def test_the_refill_threshold_follows_a_tables_narrowed_minimum_and_ignores_retired_tables(db):
    only = fast_table("Only")
    assert table_minimum_stake() == Decimal("1.00")
    TableLimit.objects.bulk_create(
        [TableLimit(table=only, bet_type=t, min_stake=Decimal("5.00")) for t in only.variant.limits_dict()["per_type"]]
    )
    assert table_minimum_stake() == Decimal("5.00")
    controls.table_close(table_id=only.pk, when="round", reason="x")
    controls.table_retire(table_id=only.pk, reason="y")
    assert table_minimum_stake() == Decimal("0.01")  # no table left for players
