"""/multi/ in headless Chromium against a real casino: one page with two fast tables, a bet on each in the same
betting windows, both rounds settled, each table's result shown and the page's one balance equal to the wallet's;
on a phone the tables stack and nothing is wider than the screen. The DOM hooks are in docs/table-client.md."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tables.models import Bet
from tests.browser.helpers import PASSWORD, log_in, wait_until
from tests.factories import make_table, make_user, make_variant
from wallets.selectors import wallet_balance
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
START = Decimal("10000.00")

# Records, from inside the page, each table's result the moment its player's net result is written (the next
# round clears it within seconds, so it is kept rather than polled for).
RECORDER = """() => {
  window.__results = {};
  for (const root of document.querySelectorAll("#multi-grid > .mt")) {
    const id = root.dataset.tableId;
    const el = (name) => root.querySelector(`[data-el="${name}"]`);
    const list = (window.__results[id] = []);
    new MutationObserver(() => {
      const net = el("result-net");
      if (!net.textContent) return;
      list.push({
        roundId: root.dataset.roundId,
        winner: el("result").dataset.winner || null,
        hidden: el("result").hidden,
        text: el("result-text").textContent,
        net: net.dataset.net,
        netText: net.textContent,
      });
    }).observe(el("result-net"), { childList: true, characterData: true, subtree: true });
  }
}"""


def money(text: str) -> Decimal:
    return Decimal(text.strip().replace(",", "").replace("+", "").replace("\u2212", "-"))


@pytest.fixture
def player():
    user = make_user("dora", PASSWORD)
    wallet_deposit(user=user, amount=START, reason="test funds")
    return user


def fast_table(name: str):
    """10 s windows, a card every 100 ms, 2 s of result: two such tables always share part of a window."""
    return make_table(name, make_variant(f"{name} rules"), betting_seconds=10, deal_interval_ms=100, result_seconds=2)


def seat(page, table):
    return page.locator(f"#mt-{table.id}")


def test_a_player_bets_on_two_tables_in_the_same_windows_and_the_one_balance_stays_right(casino_url, page, player):
    log_in(page, casino_url, "dora")
    first, second = fast_table("Multi one"), fast_table("Multi two")
    page.goto(f"{casino_url}/multi/?t={first.id}&t={second.id}")
    for table in (first, second):
        expect(seat(page, table)).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(page.locator("#balance")).to_have_text("10,000.00")
    # The choice is remembered for the next visit to /multi/.
    assert page.evaluate("localStorage.getItem('casino.multi')") == f'["{first.id}","{second.id}"]'

    # Side by side at 1280 px.
    boxes = [seat(page, t).bounding_box() for t in (first, second)]
    assert abs(boxes[0]["y"] - boxes[1]["y"]) < 2
    assert boxes[1]["x"] > boxes[0]["x"] + boxes[0]["width"] - 2

    page.evaluate(RECORDER)
    page.wait_for_function(
        """(ids) => ids.every((id) => {
          const root = document.getElementById("mt-" + id);
          const left = parseInt(root.querySelector('[data-el="countdown"]').textContent, 10);
          return root.dataset.roundState === "betting" && root.dataset.connected === "1" && left >= 4;
        })""",
        arg=[first.id, second.id],
        timeout=30_000,
    )
    rounds = {t.id: int(seat(page, t).get_attribute("data-round-id")) for t in (first, second)}

    page.click("#chips button.chip[data-value='25']")
    seat(page, first).locator("button.spot[data-type=player]").click()
    seat(page, first).locator("button.spot[data-type=player]").click()
    page.click("#chips button.chip[data-value='5']")
    seat(page, first).locator("button.spot[data-type=banker_pair]").click()
    seat(page, second).locator("button.spot[data-type=banker]").click()
    seat(page, second).locator("button.spot[data-type=tie]").click()
    expect(seat(page, first).locator("[data-el=stake-total]")).to_have_text("55.00")
    expect(seat(page, second).locator("[data-el=stake-total]")).to_have_text("10.00")
    expect(page.locator("#balance")).to_have_text("10,000.00")  # pending chips cost nothing

    seat(page, first).locator("[data-el=confirm]").click()
    seat(page, second).locator("[data-el=confirm]").click()
    for table in (first, second):
        expect(seat(page, table).locator("[data-el=notice]")).to_have_text("Bets confirmed")
    expect(page.locator("#balance")).to_have_text("9,935.00")
    expect(seat(page, first).locator("[data-confirmed-for=player]")).to_have_text("50.00")
    expect(seat(page, second).locator("[data-confirmed-for=banker]")).to_have_text("5.00")

    # Both bets belong to the rounds that were open side by side, and the server settles both.
    placed = {t.id: list(Bet.objects.filter(round__table=t, user=player)) for t in (first, second)}
    assert {t: {b.round_id for b in bets} for t, bets in placed.items()} == {t: {rounds[t]} for t in rounds}
    wait_until(
        lambda: not Bet.objects.filter(user=player, outcome__status__isnull=True).exists(),
        timeout=40,
        message="both rounds to settle",
    )

    # Each table shows its own result and the player's net on it, as the server decided.
    for table in (first, second):
        round_id = rounds[table.id]
        results = page.wait_for_function(
            "([id, round]) => (window.__results[id] || []).find((r) => r.roundId === String(round)) || null",
            arg=[str(table.id), round_id],
            timeout=20_000,
        ).json_value()
        data = page.request.get(f"{casino_url}/api/rounds/{round_id}/").json()
        assert results["winner"] == data["winner"]
        assert not results["hidden"]
        assert results["text"].startswith(
            {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[data["winner"]]
        )
        net = sum(money(b["payout"]) - money(b["amount"]) for b in data["bets"])
        assert Decimal(results["net"]) == net

    # One balance for the page, equal to the wallet's once everything settled.
    api = money(page.request.get(f"{casino_url}/api/wallet/").json()["balance"])
    assert api == wallet_balance(user=player)["balance"]
    paid = sum((b.payout for b in Bet.objects.filter(user=player)), Decimal(0))
    assert api == START - Decimal("65.00") + paid
    page.wait_for_function(
        "(want) => document.getElementById('balance').textContent === want", arg=f"{api:,.2f}", timeout=10_000
    )


def test_on_a_phone_the_tables_stack_and_nothing_is_wider_than_the_screen(casino_url, page, player):
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, casino_url, "dora")
    first, second = fast_table("Phone one"), fast_table("Phone two")
    page.goto(f"{casino_url}/multi/?t={first.id}&t={second.id}")
    for table in (first, second):
        expect(seat(page, table)).to_have_attribute("data-connected", "1", timeout=15_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#multi-grid > .mt')].every((r) => r.dataset.roundState)"
    )
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: scrollWidth {widths[0]} > innerWidth {widths[1]}"
    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
          .filter((e) => !e.closest('.road-scroll') && e.getBoundingClientRect().right > innerWidth + 0.5)
          .map((e) => e.tagName + '.' + e.className)"""
    )
    assert wide == []
    boxes = [seat(page, t).bounding_box() for t in (first, second)]
    assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"] - 1, "one table per row"
    for table in (first, second):
        for name in ("confirm", "countdown"):
            expect(seat(page, table).locator(f"[data-el={name}]")).to_be_visible()
        expect(seat(page, table).locator("button.spot[data-type=player]")).to_be_visible()
    expect(page.locator("#chips")).to_be_visible()


def test_without_a_choice_the_page_shows_the_open_tables_and_puts_them_in_the_url(casino_url, page, player):
    log_in(page, casino_url, "dora")
    tables = [fast_table(f"Default {n}") for n in range(1, 6)]
    page.goto(f"{casino_url}/multi/")
    expect(page.locator("#multi-grid > .mt")).to_have_count(4)
    ids = [t.id for t in tables[:4]]
    assert page.url.endswith("/multi/?" + "&".join(f"t={i}" for i in ids))
    # The picker keeps to four: the fifth box is disabled while four are ticked.
    page.click("#picker summary")
    expect(page.locator(f"#picker-form input[value='{tables[4].id}']")).to_be_disabled()
    page.uncheck(f"#picker-form input[value='{ids[0]}']")
    page.check(f"#picker-form input[value='{tables[4].id}']")
    page.click("#picker-form button[type=submit]")
    expect(page.locator("#multi-grid > .mt")).to_have_count(4)
    expect(page.locator(f"#mt-{tables[4].id}")).to_have_count(1)
    # Remembered: /multi/ again brings back this choice.
    page.goto(f"{casino_url}/multi/")
    page.wait_for_url(f"**/multi/?t={ids[1]}*")
    expect(page.locator(f"#mt-{tables[4].id}")).to_have_count(1)
    expect(page.locator(f"#mt-{ids[0]}")).to_have_count(0)
