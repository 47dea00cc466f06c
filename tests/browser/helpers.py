"""What the browser tests share: signing in, waiting (for a condition, for a betting window), and what
"no English, amounts 1,234.00" means on a page."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection
from playwright.sync_api import expect

from tables.models import Table
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

T = TypeVar("T")

PASSWORD = "pass-word-123"
#: How every amount is written, in every language: 1,234.00.
AMOUNT = re.compile(r"^\d{1,3}(,\d{3})*\.\d{2}$")
#: Anything that looks like money: digits with a decimal point and two decimals.
MONEY_LIKE = re.compile(r"[\d][\d,.\u00a0 ]*[.,]\d{2}(?!\d)")


def funded_players(*names: str, amount: Decimal = Decimal("1000.00")) -> list[Any]:
    """Players (password ``PASSWORD``) whose wallets each hold ``amount``."""
    made = []
    for name in names:
        user = make_user(name, PASSWORD)
        wallet_deposit(user=user, amount=amount, reason="test funds")
        made.append(user)
    return made


def log_in(page, base: str, username: str, password: str = PASSWORD, *, wait: bool = True) -> None:
    """Sign in through the login form; with ``wait``, until the lobby it lands on has loaded."""
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    if wait:
        page.wait_for_url(base + "/")


def wait_until(
    predicate: Callable[[], T], *, timeout: float = 30, interval: float = 0.1, message: str = "condition"
) -> T:
    """Call ``predicate`` every ``interval`` s until it returns something true, and return that; after
    ``timeout`` s fail, naming ``message`` (what was awaited)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {message}")
        time.sleep(interval)


def wait_for_betting(page, *, min_left: int = 3, after: int = 0, timeout: float = 40_000) -> int:
    """Until the table page shows the betting window of a round newer than ``after`` open, connected, with at
    least ``min_left`` s on the countdown (so clicks land inside it); returns the round's id."""
    page.wait_for_function(
        """([min, after]) => {
          const t = document.getElementById("table");
          return t.dataset.roundState === "betting" && t.dataset.connected === "1"
            && Number(t.dataset.roundId) > after
            && parseInt(document.getElementById("countdown").textContent, 10) >= min;
        }""",
        arg=[min_left, after],
        timeout=timeout,
    )
    return int(page.get_attribute("#table", "data-round-id"))


def english_sources() -> set[str]:
    """Every English msgid of the project's catalogues (templates, Python and scripts), placeholders aside."""
    sources: set[str] = set()
    for domain in ("django", "djangojs"):
        text = (Path(settings.BASE_DIR) / "locale" / "ru" / "LC_MESSAGES" / f"{domain}.po").read_text("utf-8")
        for match in re.finditer(r'^msgid ((?:".*"\n)+)', text, re.M):
            msgid = "".join(re.findall(r'"(.*)"', match.group(1))).strip()
            if msgid and "%(" not in msgid:
                sources.add(msgid)
    return sources


def in_thread(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a thread without an event loop and return its result."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(work).result()


def in_own_thread(service: Callable[..., Any], **kwargs: Any) -> Any:
    """Call a service as the casino's own processes would: from a thread of its own. Playwright's sync API
    keeps an event loop running in the test's thread, where the services' after-commit sends are refused.
    The thread's database connection is closed before it ends."""

    def run() -> Any:
        try:
            return service(**kwargs)
        finally:
            connection.close()

    return in_thread(run)


# ── the dealer's console (docs/api.md, "Dealer's console"), driven as a dealer does: by keyboard ──


def live_table(
    name: str, *, decks: int = 8, betting_seconds: int = 6, result_seconds: int = 5, dealer_timeout_seconds: int = 120
) -> Table:
    """A table dealt by a live dealer, with a variant of its own."""
    cut = {"cut_min": 6, "cut_max": 13} if decks == 1 else {}  # a live shoe's cut card is the dealer's; valid anyway
    variant = make_variant(f"{name} rules", decks=decks, **cut)
    return make_table(
        name,
        variant,
        dealing=Table.Dealing.LIVE,
        betting_seconds=betting_seconds,
        deal_interval_ms=100,
        result_seconds=result_seconds,
        dealer_timeout_seconds=dealer_timeout_seconds,
    )


def console(page):
    """The dealer's console (/dealer/tables/<id>/): its data-* attributes say its state."""
    return page.locator("#console")


def open_console(page, base: str, table: Table) -> None:
    page.goto(f"{base}/dealer/tables/{table.pk}/")
    expect(console(page)).to_have_attribute("data-connected", "1", timeout=15_000)


def scan(page, code: str) -> None:
    """What a USB scanner does: the code's keys, then Enter, into whatever has the focus."""
    page.keyboard.type(code)
    page.keyboard.press("Enter")


def take_shift_and_burn(page, burn: str = "5H") -> None:
    """Take the shift (unless on it already), scan the new shoe's burn card and confirm the burn: a round opens."""
    if console(page).get_attribute("data-on-shift") != "1":
        page.click("#dc-shift")
    expect(console(page)).to_have_attribute("data-on-shift", "1")
    expect(page.locator("#dc-shift")).to_be_hidden()
    expect(console(page)).to_have_attribute("data-waiting-for", "burn_card", timeout=15_000)
    expect(page.locator("#dc-expect-big")).to_have_text("Scan the burn card")
    scan(page, burn)
    expect(console(page)).to_have_attribute("data-waiting-for", "burn_confirm")
    count = 10 if burn[0] in "TJQK" else (1 if burn[0] == "A" else int(burn[0]))
    expect(page.locator("#dc-expect-big")).to_have_text(f"Burn {count} card" + ("s" if count > 1 else ""))
    expect(page.locator("#dc-burn")).to_be_visible()
    page.click("#dc-burn")
    expect(console(page)).to_have_attribute("data-waiting-for", "")
    expect(page.locator("#dc-burn-info")).to_contain_text(f"{count} burned")


def wait_for_close(page, timeout: float = 30_000) -> None:
    """Until betting has closed and the console asks for the first card."""
    expect(console(page)).to_have_attribute("data-next", "P1", timeout=timeout)
    expect(page.locator("#dc-expect-big")).to_have_text("Player 1")


def deal(page, codes_and_slots: list[tuple[str, str]]) -> None:
    """Scan each card after checking the console expects it in that slot."""
    dealt = int(console(page).get_attribute("data-cards") or 0)
    for code, slot in codes_and_slots:
        expect(console(page)).to_have_attribute("data-next", slot)
        scan(page, code)
        dealt += 1
        expect(console(page)).to_have_attribute("data-cards", str(dealt))


def chip(page, value: int) -> None:
    """Choose a chip on the table page."""
    page.click(f"#chips button.chip[data-value='{value}']")
    expect(page.locator(f"#chips button.chip[data-value='{value}']")).to_have_attribute("aria-checked", "true")
