"""Variant and table settings in the admin, through the real change forms as a browser submits them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from auditlog.models import LogEntry

from tables.models import Variant
from tests.factories import make_user, make_variant
from tests.tables.browser_form import form_data


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


def test_the_add_page_preselects_the_default_tie_odds(client, operator):
    _data, selected = form_data(client.get("/admin/tables/variant/add/").content.decode(), "variant_form")
    assert selected["pays_tie"]
