"""A player's personal maximum on the live table page, in headless Chromium: shown next to the table's limits,
checked by the board before anything is sent, and the server's refusal past it explained next to the spot."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from baccarat_site.accounts.services import player_limit_set
from tables.models import Bet
from tests.browser.helpers import PASSWORD, log_in, wait_for_betting
from tests.browser.test_player import chip, open_table, pending, spot
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def player():
    user = make_user("carol", PASSWORD)
    wallet_deposit(user=user, amount=Decimal("10000.00"), reason="test funds")
    return user


@pytest.fixture
def new_table():
    def make(name: str):
        variant = make_variant(f"{name} rules")
        return make_table(name, variant, betting_seconds=15, deal_interval_ms=100, result_seconds=2)

    return make


def test_the_board_keeps_a_player_within_their_personal_maximum(casino_url, page, player, new_table, console_errors):
    console_errors.allow(r"status of 400 .*/api/rounds/\d+/bets/")  # the refused POST, on purpose
    supervisor = make_user("floor-super", is_staff=True)
    player_limit_set(user=player, max_stake=Decimal("100.00"), reason="restricted at request", actor=supervisor)
    log_in(page, casino_url, "carol")
    table = new_table("Personal table")
    open_table(page, casino_url, table)
    expect(page.locator("#personal-limits")).to_be_visible()
    expect(page.locator("#personal-max")).to_have_text("100.00")
    expect(page.locator("#spot-tie .limits")).to_have_text("1.00 – 5,000.00")  # the table's own, beside it
    wait_for_betting(page, min_left=10)

    # Up to the personal maximum the chips go down; one more is refused at once, next to its spot.
    chip(page, 100)
    spot(page, "tie").click()
    expect(pending(page, "tie")).to_have_text("+100.00")
    chip(page, 1)
    spot(page, "tie").click()
    expect(page.locator("[data-error-for=tie]")).to_have_text("Your personal maximum on Tie is 100.00 in a round.")
    expect(pending(page, "tie")).to_have_text("+100.00")
    page.click("#clear")

    # Lowered while the page is open: the page cannot know; the server refuses with the same code, and the page
    # says why and shows the new limit.
    player_limit_set(user=player, max_stake=Decimal("20.00"), reason="lowered on review", actor=supervisor)
    chip(page, 25)
    spot(page, "tie").click()
    page.click("#confirm")
    expect(page.locator("[data-error-for=tie]")).to_have_text("Your personal maximum on Tie is 20.00 in a round.")
    expect(page.locator("#personal-max")).to_have_text("20.00")
    expect(page.locator("#balance")).to_have_text("10,000.00")
    assert not Bet.objects.filter(user=player).exists()
