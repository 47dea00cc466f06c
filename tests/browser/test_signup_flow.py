"""A new player in headless Chromium against the live casino: signs up, finds the starting play money in the
header, bets at a table until the bet settles, changes the password and signs in with it. The Persian sign-up on
a phone is in test_signup_persian.py."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tables.models import Bet
from tests.browser.helpers import log_in, wait_until
from tests.factories import make_table, make_variant
from wallets.selectors import wallet_balance

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "felt-and-chips-42"
NEW_PASSWORD = "banker-by-six-77"

# Elements wider than the viewport, and the page's scroll width against it.
OVERFLOW = """() => ({
  scroll: document.documentElement.scrollWidth,
  inner: window.innerWidth,
  wide: [...document.querySelectorAll("body *")]
    .filter((e) => e.getBoundingClientRect().width > window.innerWidth + 0.5)
    .map((e) => e.tagName + (e.id ? "#" + e.id : "") + "." + e.className),
})"""


def money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def header_balance(page):
    return page.locator("header [data-header-balance] bdi")


def sign_up(page, base: str, username: str, password: str = PASSWORD, password2: str | None = None) -> None:
    page.goto(base + "/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", password)
    page.fill("input[name=password2]", password2 or password)
    page.click("main button[type=submit]")


def assert_fits(page, where: str) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["scroll"] <= layout["inner"], f"{where}: the page scrolls sideways ({layout})"
    assert layout["wide"] == [], f"{where}: wider than the screen: {layout['wide']}"


def test_a_new_player_signs_up_bets_with_the_starting_money_and_changes_the_password(casino_url, page):
    sign_up(page, casino_url, "newcomer")
    page.wait_for_url(casino_url + "/")
    expect(header_balance(page)).to_have_text("1,000.00")
    expect(page.locator("header a.who")).to_have_text("newcomer")
    user = get_user_model().objects.get(username="newcomer")
    assert wallet_balance(user=user)["balance"] == Decimal("1000.00")

    # A fast table: its first round opens within a tick of being made.
    table = make_table(
        "Signup table", make_variant("Signup rules"), betting_seconds=6, deal_interval_ms=100, result_seconds=2
    )
    page.goto(f"{casino_url}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(page.locator("#balance")).to_have_text("1,000.00")
    page.wait_for_function(
        """() => {
          const t = document.getElementById("table");
          return t.dataset.roundState === "betting" && t.dataset.connected === "1"
            && parseInt(document.getElementById("countdown").textContent, 10) >= 3;
        }""",
        timeout=30_000,
    )
    chip = page.locator("#chips button.chip:not([disabled])").first
    stake = Decimal(chip.get_attribute("data-value"))
    chip.click()
    page.click("button.spot[data-type=player]")
    page.click("#confirm")
    expect(page.locator("#balance")).to_have_text(money(Decimal("1000.00") - stake))
    expect(header_balance(page)).to_have_text(money(Decimal("1000.00") - stake))  # the header follows the table

    bet = wait_until(
        lambda: Bet.objects.filter(user=user).filter(outcome__status__isnull=False).first(),
        timeout=40,
        message="the settlement",
    )
    settled = wallet_balance(user=user)["balance"]
    assert settled == Decimal("1000.00") - stake + bet.payout
    expect(page.locator("#balance")).to_have_text(money(settled), timeout=15_000)
    expect(header_balance(page)).to_have_text(money(settled))
    page.goto(casino_url + "/")
    expect(header_balance(page)).to_have_text(money(settled))

    # The password, from the profile.
    page.click("header a.who")
    page.wait_for_url(casino_url + "/accounts/profile/")
    expect(page.locator("#profile-balance")).to_have_text(money(settled))
    page.click("a[href='/accounts/password/']")
    page.fill("input[name=old_password]", PASSWORD)
    page.fill("input[name=new_password1]", NEW_PASSWORD)
    page.fill("input[name=new_password2]", NEW_PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(casino_url + "/accounts/password/done/")
    expect(page.locator("main h1")).to_have_text("Password changed")

    page.click("header form[action='/accounts/logout/'] button")
    page.wait_for_url(casino_url + "/")
    expect(header_balance(page)).to_have_count(0)
    log_in(page, casino_url, "newcomer", PASSWORD, wait=False)
    expect(page.locator(".form-alert")).to_contain_text("That username and password do not match")
    log_in(page, casino_url, "newcomer", NEW_PASSWORD, wait=False)
    page.wait_for_url(casino_url + "/")
    expect(header_balance(page)).to_have_text(money(settled))
