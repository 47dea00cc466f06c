"""Four eyes in headless Chromium: a cashier asks for a withdrawal over the approval threshold from the wallet
admin, nothing moves; a supervisor finds it in the approvals queue, approves it, and it is applied once."""

from __future__ import annotations

import os
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from baccarat_site import roles
from tests.browser.helpers import PASSWORD
from tests.factories import make_user
from wallets import services
from wallets.models import MoneyRequest, Wallet

pytestmark = pytest.mark.django_db(transaction=True)


def admin_log_in(page, base: str, username: str) -> None:
    page.goto(base + "/admin/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(base + "/admin/")


def staff(username: str, role: str):
    user = make_user(username, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def test_a_cashiers_large_withdrawal_waits_for_a_supervisor_who_approves_it_once(casino_url, page, settings):
    alice = make_user("alice")
    services.wallet_deposit(user=alice, amount="5000.00", reason="Test funding")
    staff("cashier", roles.CASHIERS)
    staff("boss", roles.SUPERVISORS)
    wallet = Wallet.objects.get(user=alice)

    admin_log_in(page, casino_url, "cashier")
    page.goto(casino_url + "/admin/wallets/wallet/")
    page.check(f"input[name=_selected_action][value='{wallet.pk}']")
    page.select_option("select[name=action]", "withdraw")
    page.click("button[name=index]")
    expect(page.locator("h1")).to_have_text("Withdraw play money")
    page.fill("input[name=amount]", "1500.00")
    page.fill("input[name=reason]", "Cash out at desk 2")
    page.click("input[name=apply]")
    expect(page.locator("ul.messagelist")).to_contain_text("needs the approval of another member of staff")
    assert Wallet.objects.get(user=alice).balance == Decimal("5000.00")
    asked = MoneyRequest.objects.get()
    assert (asked.status, asked.amount) == ("pending", Decimal("-1500.00"))
    # The cashier sees the queue but has no Approve button.
    page.goto(casino_url + "/admin/wallets/moneyrequest/")
    expect(page.locator("#result_list")).to_contain_text("Cash out at desk 2")
    assert page.locator("select[name=action] option[value=approve]").count() == 0

    page.context.clear_cookies()
    admin_log_in(page, casino_url, "boss")
    # The admin home's back-office box: each link on one line beside its description, clear of the sidebar.
    box = page.locator("#back-office").bounding_box()
    sidebar = page.locator("#content-related").bounding_box()
    assert box["x"] + box["width"] <= sidebar["x"], (box, sidebar)
    for link in page.locator("#back-office th a").all():
        assert link.bounding_box()["height"] < 30, link.inner_text()  # one line, not one letter a line
    expect(page.locator("#back-office")).to_contain_text("Approvals")
    page.goto(casino_url + "/admin/wallets/moneyrequest/?status__exact=pending")
    page.check(f"input[name=_selected_action][value='{asked.pk}']")
    page.select_option("select[name=action]", "approve")
    page.click("button[name=index]")
    expect(page.locator("#content-main")).to_contain_text("Cash out at desk 2")
    page.fill("input[name=note]", "Ticket 991 checked")
    page.click("input[name=apply]")
    expect(page.locator("ul.messagelist")).to_contain_text(f"Request #{asked.pk} approved and applied.")
    page.goto(casino_url + "/admin/wallets/moneyrequest/")
    expect(page.locator("#result_list")).to_contain_text("Approved and applied")
    if shots := os.environ.get("SCREENSHOTS"):
        page.screenshot(path=f"{shots}/admin-money-requests.png", full_page=True)

    assert Wallet.objects.get(user=alice).balance == Decimal("3500.00")
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by.username, asked.requested_by.username) == ("approved", "boss", "cashier")
