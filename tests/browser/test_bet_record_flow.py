"""The bet record in headless Chromium against a live casino: a player plays a round on a fast table, finds it in
the record grouped by round with its cards and the right net, opens the round's detail, downloads the CSV and
checks it against /api/bets/; the Persian record shows translated names; at 390 px nothing is wider than the
screen."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tables.labels import BET_NAMES, MODE_NAMES, RESULT_NAMES
from tests.browser.helpers import PASSWORD, log_in, wait_until
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)


def money(text: str) -> Decimal:
    """An amount as the page writes it ("1,234.00", "+5.00", "−5.00")."""
    return Decimal(text.strip().replace(",", "").replace("+", "").replace("\u2212", "-"))


def play_one_round(page, base: str, table) -> int:
    """Bet 25.00 on Player and 5.00 on Tie in the next betting window with at least 4 s left; the round's id."""
    page.goto(f"{base}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    page.wait_for_function(
        """() => {
          const t = document.getElementById("table");
          return t.dataset.roundState === "betting" && t.dataset.connected === "1"
            && parseInt(document.getElementById("countdown").textContent, 10) >= 4;
        }""",
        timeout=30_000,
    )
    round_id = int(page.get_attribute("#table", "data-round-id"))
    for value, bet_type in ((25, "player"), (5, "tie")):
        page.click(f"#chips button.chip[data-value='{value}']")
        expect(page.locator(f"#chips button.chip[data-value='{value}']")).to_have_attribute("aria-checked", "true")
        page.locator(f"button.spot[data-type={bet_type}]").click()
    page.click("#confirm")
    expect(page.locator("#my-bets li[data-status=open]")).to_have_count(2)
    return round_id


def no_wider_than_the_screen(page) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{page.url}: {widths[0]} px wide on a {widths[1]} px screen"


@pytest.fixture
def player():
    user = make_user("dora", PASSWORD)
    wallet_deposit(user=user, amount=Decimal("5000.00"), reason="test funds")
    return user


def test_a_played_round_appears_in_the_record_its_detail_and_the_csv(casino_url, page, browser, console_errors, player):
    log_in(page, casino_url, "dora")
    table = make_table(
        "Record table", make_variant("Record rules"), betting_seconds=6, deal_interval_ms=100, result_seconds=2
    )
    round_id = play_one_round(page, casino_url, table)

    def settled():
        data = page.request.get(f"{casino_url}/api/rounds/{round_id}/").json()
        return data if data["bets"] and all(b["status"] != "open" for b in data["bets"]) else None

    # Generous: on a machine busy with other tests, the casino's worker may take a while to reach the settlement.
    data = wait_until(settled, timeout=90, interval=0.2, message="the round's bets to be settled")
    bets = {b["type"]: b for b in data["bets"]}
    nets = {t: Decimal(b["payout"]) - Decimal(b["amount"]) for t, b in bets.items()}

    # The record: the round as one group, its cards left to right per hand, the winner, each bet and its net.
    page.click("a[href='/bets/']")
    group = page.locator(f"article.rec-round[data-round-id='{round_id}']")
    expect(group).to_be_visible()
    expect(group).to_have_attribute("data-winner", data["winner"])
    for hand in ("player", "banker"):
        dealt = [c["card"] for c in sorted(data["cards"], key=lambda c: c["position"]) if c["hand"] == hand]
        shown = group.locator(f".rec-hand[data-hand={hand}] .rc").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == dealt, hand
        assert group.locator(f".rec-hand[data-hand={hand}] .rec-points").inner_text() == str(data[f"{hand}_total"])
        boxes = group.locator(f".rec-hand[data-hand={hand}] .rc").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().left)"
        )
        assert boxes == sorted(boxes), "cards read left to right"
    expect(group.locator("tr.rec-bet")).to_have_count(2)
    # The page is in English: the expected names too, whatever language an earlier test on this worker left active.
    with translation.override("en"):
        for bet_type, bet in bets.items():
            row = group.locator(f"tr.rec-bet[data-type={bet_type}]")
            expect(row).to_have_attribute("data-status", bet["status"])
            assert row.locator(".rec-bet-name").inner_text() == str(BET_NAMES[bet_type])
            assert money(row.locator(".c-stake bdi").inner_text()) == Decimal(bet["amount"])
            assert money(row.locator(".rec-net").inner_text()) == nets[bet_type]
            assert row.locator(".c-result").inner_text() == str(RESULT_NAMES[bet["status"]])
    assert money(group.locator("[data-round-net]").inner_text()) == sum(nets.values())
    assert money(page.locator("[data-total=net]").inner_text()) == sum(nets.values())

    # The round's detail page.
    group.locator("a.rec-detail").click()
    page.wait_for_url(f"{casino_url}/bets/rounds/{round_id}/")
    expect(page.locator("#round-winner")).to_be_visible()
    assert page.locator("#player-total").inner_text() == str(data["player_total"])
    assert page.locator("#banker-total").inner_text() == str(data["banker_total"])
    assert page.locator(".rec-felt .rc").count() == len(data["cards"])
    expect(page.locator("#round-bets tr.rec-bet")).to_have_count(2)
    assert money(page.locator("#round-bets [data-round-net]").inner_text()) == sum(nets.values())
    expect(page.locator("#shoe-commitment")).to_have_text(
        page.request.get(f"{casino_url}/api/tables/{table.id}/").json()["shoe"]["commitment"]
    )

    # The CSV, downloaded through the link, holds exactly the bets /api/bets/ lists.
    page.goto(f"{casino_url}/bets/")
    with page.expect_download() as download_info:
        page.click("#csv-link")
    download = download_info.value
    assert download.suggested_filename.startswith("bet-record-")
    assert download.suggested_filename.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    api = page.request.get(f"{casino_url}/api/bets/").json()["results"]
    assert len(rows) >= 2, rows  # at least this test's two bets: an empty CSV would agree with an empty list
    assert [(r["time_utc"], r["round"], r["bet"], r["stake"], r["result"], r["payout"]) for r in rows] == [
        (b["placed_at"], str(b["round_number"]), b["type"], b["amount"], b["status"], b["payout"]) for b in api
    ]
    for row in rows:
        assert row["table"] == "Record table"
        assert Decimal(row["net"]) == Decimal(row["payout"]) - Decimal(row["stake"])

    # In Persian: the names are the catalogue's, no English left on the record, cards still left to right.
    page.context.add_cookies([{"name": "django_language", "value": "fa", "url": casino_url}])
    page.goto(f"{casino_url}/bets/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    group = page.locator(f"article.rec-round[data-round-id='{round_id}']")
    with translation.override("fa"):
        for bet_type, bet in bets.items():
            row = group.locator(f"tr.rec-bet[data-type={bet_type}]")
            assert row.locator(".rec-bet-name").inner_text() == str(BET_NAMES[bet_type])
            assert row.locator(".c-result").inner_text() == str(RESULT_NAMES[bet["status"]])
            assert row.locator(".c-mode").inner_text() == str(MODE_NAMES[bet["mode"]])
    text = page.locator("main").inner_text()
    for english in ("Player", "Banker", "Tie", "Won", "Lost", "Push", "Traditional", "Stake", "Round net", "Net"):
        assert english not in text.replace("Record table", ""), english
    assert group.locator(".rec-deal").get_attribute("dir") == "ltr"

    # A phone, in both languages: every round a card, nothing wider than the screen.
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, storage_state=page.context.storage_state(), locale="en-US"
    )
    try:
        small = phone.new_page()
        console_errors.watch(small)
        for lang in ("en", "fa"):
            phone.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
            for path in ("/bets/", f"/bets/rounds/{round_id}/", "/bets/?type=jackpot"):
                small.goto(casino_url + path)
                no_wider_than_the_screen(small)
            small.goto(casino_url + "/bets/")
            card = small.locator(f"article.rec-round[data-round-id='{round_id}']").bounding_box()
            assert card["x"] >= 0
            assert card["x"] + card["width"] <= 390
    finally:
        phone.close()
