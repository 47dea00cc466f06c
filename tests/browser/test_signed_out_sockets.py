"""In Chromium against the live casino: signing out in one tab closes the table socket of another tab of the
same session (4401), and that page draws itself again as a watcher's, balance gone."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import log_in
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)


def test_signing_out_in_another_tab_turns_the_table_page_into_a_watchers(casino_url, page):
    carol = make_user("carol")
    wallet_deposit(user=carol, amount=Decimal("500.00"), reason="test funds")
    table = make_table("Sign-out table", make_variant("Sign-out rules"), betting_seconds=6, result_seconds=2)
    log_in(page, casino_url, "carol")
    page.goto(f"{casino_url}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(page.locator("header [data-header-balance]")).to_have_count(1)

    other = page.context.new_page()
    other.goto(f"{casino_url}/accounts/profile/")
    other.locator("header form[action='/accounts/logout/'] button").click()
    other.wait_for_url(f"{casino_url}/")

    # The first tab's socket was closed with 4401: the page reloaded as the session now is, signed out. (The close,
    # the reload and the new page's own socket: 15 s was once too short with CI's two workers on two CPUs.)
    expect(page.locator("header [data-header-balance]")).to_have_count(0, timeout=30_000)
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    other.close()
