"""What the browser tests share: signing in, waiting (for a condition, for a betting window), and what
"no English, amounts 1,234.00" means on a page."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection

T = TypeVar("T")

PASSWORD = "pass-word-123"
#: How every amount is written, in every language: 1,234.00.
AMOUNT = re.compile(r"^\d{1,3}(,\d{3})*\.\d{2}$")
#: Anything that looks like money: digits with a decimal point and two decimals.
MONEY_LIKE = re.compile(r"[\d][\d,.\u00a0 ]*[.,]\d{2}(?!\d)")


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
