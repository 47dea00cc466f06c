"""An operator edits a variant in Chromium: a 9:1 Tie stays 9:1 through a save (the select once showed no
option selected and the browser sent 8:1 back), and "Preview odds" shows a change's edges before saving it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tables.models import Variant
from tests.factories import make_user, make_variant

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "felt-and-odds-42"


def test_a_9_to_1_tie_survives_a_save_and_a_change_is_previewed_before_it_is_saved(casino_url, page):
    boss = make_user("floorboss", PASSWORD, is_staff=True, is_superuser=True)
    assert boss.is_staff
    variant = make_variant("Nine to one", paytable={"tie": 9})
    url = f"{casino_url}/admin/tables/variant/{variant.pk}/change/"

    page.goto(f"{casino_url}/admin/login/?next=/admin/")
    page.fill("input[name=username]", "floorboss")
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{casino_url}/admin/")

    page.goto(url)
    expect(page.locator("select#id_pays_tie")).to_have_value("9.00")
    page.click("input[name=_save]")
    page.wait_for_url(f"{casino_url}/admin/tables/variant/")
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")

    page.goto(url)
    page.select_option("select#id_pays_tie", "8.00")
    page.click("input[name=_preview]")
    expect(page.locator("table.exact-odds")).to_contain_text("14.3596%")  # Tie at 8:1, 8 decks
    expect(page.locator("select#id_pays_tie")).to_have_value("8.00")
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("9.00")  # a preview saves nothing

    page.click("input[name=_save]")
    page.wait_for_url(f"{casino_url}/admin/tables/variant/")
    assert Variant.objects.get(pk=variant.pk).pays_tie == Decimal("8.00")
