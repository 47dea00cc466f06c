"""A player's main paths in headless Chromium: log in, sit, bet, watch, settle, review."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "pass-word-123"


@pytest.fixture
def fast_table():
    return make_table("Fast table", make_variant("Baccarat"), betting_seconds=6, deal_interval_ms=100, result_seconds=2)


@pytest.fixture
def player():
    user = make_user("carol", PASSWORD)
    wallet_deposit(user=user, amount=Decimal("10000.00"), reason="test funds")
    return user


def log_in(page, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")


def wait_for_betting(page) -> None:
    """Until a betting window is open with at least 3 s left, so the clicks land inside it."""
    page.wait_for_function(
        "document.querySelector('#table').dataset.roundState === 'betting'"
        " && parseInt(document.querySelector('#countdown').textContent) >= 3",
        timeout=30_000,
    )


def test_a_player_bets_watches_the_cards_is_settled_and_finds_the_bet_in_the_record(
    casino_url, page, fast_table, player
):
    log_in(page, casino_url, "carol")
    page.click(f"a[href='/tables/{fast_table.id}/']")
    page.wait_for_selector("#balance:text('10,000.00')")
    wait_for_betting(page)

    page.check("input[name=chip][value='25']")
    page.click(".spot[data-type=banker]")
    page.click(".spot[data-type=banker]")
    assert page.inner_text("[data-stake-for=banker]") == "50.00"
    page.click("#confirm")
    page.wait_for_selector("#notice:text('Bets confirmed')")
    assert page.inner_text("#balance") == "9,950.00"
    assert "banker 50.00 · open" in page.inner_text("#my-bets")

    # The round closes, 4-6 cards are dealt live, the result shows and the wallet settles.
    page.wait_for_selector("#result[data-winner]", timeout=30_000)
    assert 2 <= page.locator("#player-cards .card").count() <= 3
    assert 2 <= page.locator("#banker-cards .card").count() <= 3
    page.wait_for_selector("#notice:text('Settled')", timeout=15_000)
    status = re.search(r"banker 50\.00 · (\w+)", page.inner_text("#my-bets")).group(1)
    assert status in {"won", "lost", "push"}
    expected = {"won": "10,047.50", "lost": "9,950.00", "push": "10,000.00"}[status]
    assert page.inner_text("#balance") == expected

    page.click("a[href='/bets/']")
    row = page.wait_for_selector("#record tbody tr")
    text = row.inner_text()
    assert "banker" in text
    assert "50.00" in text
    assert status in text


def test_a_refused_bet_says_why_and_leaves_the_balance_alone(casino_url, page, fast_table, player):
    log_in(page, casino_url, "carol")
    page.goto(f"{casino_url}/tables/{fast_table.id}/")
    page.wait_for_selector("#balance:text('10,000.00')")
    wait_for_betting(page)
    page.check("input[name=chip][value='500']")
    for _ in range(11):  # 5,500.00 > the 5,000.00 maximum
        page.click(".spot[data-type=tie]")
    page.click("#confirm")
    page.wait_for_selector("#notice.error")
    assert "5,000" in page.inner_text("#notice") or "5000" in page.inner_text("#notice")
    assert page.inner_text("#balance") == "10,000.00"
    assert page.inner_text("#my-bets") == ""


def test_a_watcher_who_is_not_signed_in_sees_the_cards_but_cannot_bet(casino_url, page, fast_table):
    page.goto(f"{casino_url}/tables/{fast_table.id}/")
    page.wait_for_selector("#player-cards .card", timeout=40_000)
    assert page.locator("#bet-form").count() == 0
    assert page.locator("text=Log in to bet").count() == 1
