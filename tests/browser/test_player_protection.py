"""Player protection in headless Chromium: a time-out taken from the profile in one tab ends the table page of
another tab (its socket closes with 4401, the page comes back a watcher's, no bet goes through); the reality
check shows the session's stakes and net and holds betting on the table and multi-table pages until answered;
and the profile's "Take a break" with its confirmation, on a phone, in the six languages.

With ``SCREENSHOTS=<dir>`` set, the break part, the confirmation and the reality check on the table page are
photographed at 390 × 844 and 1366 × 768 in English and Persian."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from baccarat_site.accounts.limits import play_limits_set
from baccarat_site.accounts.models import RealityCheckAnswer, Restriction, SignIn
from tables.models import Round
from tables.services.placement import bet_place
from tests.browser.helpers import AMOUNT, MONEY_LIKE, PASSWORD, english_sources, in_own_thread, log_in, wait_for_betting
from tests.browser.test_pages_languages import ALLOWED, LANGUAGES, NATIVE_DIGITS, VISIBLE_TEXTS
from tests.browser.test_player import open_table
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = os.environ.get("SCREENSHOTS", "")


def player(name: str):
    user = make_user(name, PASSWORD)
    wallet_deposit(user=user, amount=Decimal("10000.00"), reason="test funds")
    return user


def reality_check_due_soon(user) -> None:
    """The player's session began (and any answer to the check came) 15 minutes ago less 3 seconds: with a
    15-minute reality check, it is due in 3 seconds."""
    moment = timezone.now() - timedelta(minutes=15) + timedelta(seconds=3)
    SignIn.objects.filter(user=user).update(at=moment)
    RealityCheckAnswer.objects.filter(user=user).update(answered_at=moment)


def test_a_time_out_taken_in_another_tab_ends_the_table_page_and_no_bet_goes_through(casino_url, page, console_errors):
    console_errors.allow(r"status of 40[13] .*/api/rounds/\d+/bets/")  # the refused bet, on purpose
    dora = player("dora")
    table = make_table("Break table", make_variant("Break rules"), betting_seconds=6, result_seconds=2)
    log_in(page, casino_url, "dora")
    open_table(page, casino_url, table)
    expect(page.locator("header [data-header-balance]")).to_have_count(1)

    other = page.context.new_page()
    other.goto(f"{casino_url}/accounts/profile/")
    part = other.locator("#take-a-break")
    part.locator("#break-time_out input[value='24h']").check()
    part.locator("#break-time_out button[type=submit]").click()
    expect(other.locator("#break-until")).to_contain_text("UTC")
    assert not Restriction.objects.filter(user=dora).exists()  # the confirmation page changes nothing
    other.click("#break-confirm")
    other.wait_for_url(f"{casino_url}/accounts/login/")
    stop = Restriction.objects.get(user=dora)
    until = stop.ends_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") + " UTC"
    expect(other.locator(".flash")).to_contain_text(f"You are taking a time-out until {until}.")

    # The table tab's socket was closed with 4401 and it reloaded as the session now is: a watcher's table, or
    # the sign-in page when the reload came before the other tab's sign-out. (That page's "why" is a message of
    # the session both tabs share: whichever tab renders first shows it, and the other tab did, above.)
    expect(page.locator("header [data-header-balance]")).to_have_count(0, timeout=15_000)
    if page.url.endswith("/accounts/login/"):
        expect(page.locator("form input[name=password]")).to_be_visible()
        page.goto(f"{casino_url}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-signed-in", "0")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(page.locator("#confirm")).to_have_count(0)
    expect(page.locator("button.spot[data-type=player]")).to_be_disabled()
    # Nor does a bet sent by hand go through.
    round_id = wait_for_betting(page, min_left=1)
    answer = page.request.post(
        f"{casino_url}/api/rounds/{round_id}/bets/",
        data={"mode": "traditional", "bets": [{"type": "player", "amount": "10.00"}]},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert answer.status in (401, 403)
    assert not dora.bets.exists()

    # Signing in again is refused, saying until when.
    log_in(other, casino_url, "dora", wait=False)
    expect(other.locator(".form-alert")).to_contain_text(f"You are taking a time-out until {until}.")
    other.close()


def _place_in_next_window(table, user, amount: str) -> None:
    for _ in range(300):
        open_round = Round.objects.filter(table=table, state=Round.State.BETTING).order_by("-pk").first()
        if open_round is not None:
            try:
                in_own_thread(
                    bet_place,
                    user=user,
                    round_id=open_round.pk,
                    mode="traditional",
                    bets=[{"type": "banker", "amount": amount}],
                    idempotency_key=str(uuid.uuid4()),
                )
                return
            except Exception:  # the window closed between the read and the bet: try the next one
                pass
        page_wait(0.1)
    raise AssertionError("no betting window opened")


def page_wait(seconds: float) -> None:
    time.sleep(seconds)


HOLD = """() => ({
  hold: document.documentElement.dataset.bettingHold || "",
  confirm: [...document.querySelectorAll("#confirm, [data-el=confirm]")].map((b) => b.disabled),
  chips: [...document.querySelectorAll("#chips button.chip")].map((b) => b.disabled),
})"""


def test_the_reality_check_shows_the_sessions_stakes_and_net_and_holds_betting_until_answered(
    casino_url, page, casino_layer
):
    rita = player("rita")
    play_limits_set(user=rita, changes={"reality_check_minutes": 15})
    table = make_table("Reality table", make_variant("Reality rules"), betting_seconds=30, result_seconds=1)
    log_in(page, casino_url, "rita")
    _place_in_next_window(table, rita, "1234.00")

    reality_check_due_soon(rita)
    open_table(page, casino_url, table)
    dialog = page.locator("#reality-check")
    expect(dialog).to_be_visible(timeout=15_000)
    expect(dialog).to_contain_text("You have been playing for 15 minutes.")
    expect(dialog.locator("[data-reality-staked]")).to_have_text("1,234.00")
    net = dialog.locator("[data-reality-net]").text_content() or ""
    if not rita.bets.filter(outcome__status__isnull=False).exists():
        expect(dialog.locator("[data-reality-pending]")).to_have_text("1,234.00")  # the open bet, still in play
    assert AMOUNT.match(net.lstrip("+-")), net
    expect(dialog.get_by_role("button", name="Leave")).to_be_visible()
    wait_for_betting(page, min_left=5)
    held = page.evaluate(HOLD)
    assert held["hold"] == "reality-check"
    assert held["confirm"] == [True]
    assert held["chips"]
    assert all(held["chips"]), held
    if SHOTS:
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=f"{SHOTS}/reality-table-en-390.png")
        page.set_viewport_size({"width": 1366, "height": 768})
        page.screenshot(path=f"{SHOTS}/reality-table-en-1366.png")
    dialog.get_by_role("button", name="Keep playing").click()
    expect(dialog).to_be_hidden()
    wait_for_betting(page, min_left=3)
    expect(page.locator("#chips button.chip").first).to_be_enabled()
    assert page.evaluate(HOLD)["hold"] == ""

    # The multi-table page: the shared rack and every table's Confirm wait for the answer too; Leave signs out.
    reality_check_due_soon(rita)
    page.goto(f"{casino_url}/multi/?t={table.pk}")
    expect(dialog).to_be_visible(timeout=15_000)
    held = page.evaluate(HOLD)
    assert held["hold"] == "reality-check"
    assert held["confirm"]
    assert all(held["confirm"])
    assert held["chips"]
    assert all(held["chips"])
    dialog.get_by_role("button", name="Leave").click()
    page.wait_for_url(f"{casino_url}/")
    expect(page.locator("header [data-header-balance]")).to_have_count(0)

    # And in Persian, for the photographs.
    if SHOTS:
        log_in(page, casino_url, "rita")
        page.context.add_cookies([{"name": "django_language", "value": "fa", "url": casino_url}])
        reality_check_due_soon(rita)
        open_table(page, casino_url, table)
        expect(dialog).to_be_visible(timeout=15_000)
        expect(dialog.locator("[data-reality-staked]")).to_have_text("1,234.00")
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=f"{SHOTS}/reality-table-fa-390.png")
        page.set_viewport_size({"width": 1366, "height": 768})
        page.screenshot(path=f"{SHOTS}/reality-table-fa-1366.png")


# Elements of the part that stick out of the screen on either side (the limits table above scrolls on its own).
WIDE = """(selector) => [...document.querySelectorAll(selector + ", " + selector + " *")]
  .filter((el) => { const b = el.getBoundingClientRect();
    return b.width > 0 && (b.right > window.innerWidth + 0.5 || b.left < -0.5); })
  .map((el) => `${el.tagName.toLowerCase()}.${el.className}`).slice(0, 5)"""


def test_take_a_break_and_its_confirmation_on_a_phone_in_every_language(casino_url, browser):
    sources = english_sources()
    make_user("brenda", PASSWORD)
    problems: list[str] = []
    for lang in LANGUAGES:
        sizes = [(390, 844), (1366, 768)] if SHOTS and lang in ("en", "fa") else [(390, 844)]
        for width, height in sizes:
            context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
            context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
            page = context.new_page()
            page.set_default_timeout(20_000)
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
            log_in(page, casino_url, "brenda")
            page.goto(casino_url + "/accounts/profile/")
            part = page.locator("#take-a-break")
            part.scroll_into_view_if_needed()
            pages = [("profile", {**page.evaluate(VISIBLE_TEXTS), "part_wide": page.evaluate(WIDE, "#take-a-break")})]
            if SHOTS:
                part.screenshot(path=f"{SHOTS}/break-{lang}-{width}.png")
            part.locator("#break-self_exclusion input[value='1y']").check()
            part.locator("#break-self_exclusion button[type=submit]").click()
            expect(page.locator("#break-until")).to_be_visible()
            pages.append(("confirmation", {**page.evaluate(VISIBLE_TEXTS), "part_wide": page.evaluate(WIDE, "main")}))
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/break-confirm-{lang}-{width}.png")
            for name, seen in pages:
                where = f"{lang} {width}px {name}"
                if seen["scroll"] > seen["inner"] or seen["part_wide"]:
                    problems.append(f"{where}: wider than the {seen['inner']}-px screen: {seen['part_wide']}")
                texts = seen["texts"]
                amounts = [m.group(0).strip() for text in texts for m in MONEY_LIKE.finditer(text)]
                bad = sorted({a for a in amounts if not AMOUNT.match(a)})
                if bad:
                    problems.append(f"{where}: amounts not written 1,234.00: {bad}")
                native = sorted({t for t in texts if NATIVE_DIGITS.search(t)})
                if native:
                    problems.append(f"{where}: digits that are not 0-9: {native[:3]}")
                if lang == "en" and not any(t in sources for t in texts):
                    problems.append(f"{where}: no catalogue text found: the comparison would prove nothing")
                if lang != "en":
                    english = sorted(t for t in texts if t in sources and t not in ALLOWED | {"brenda"})
                    if english:
                        problems.append(f"{where}: English left: {english}")
            if errors:
                problems.append(f"{lang}: console errors {errors}")
            assert not Restriction.objects.exists()  # looking changes nothing
            context.close()
    assert not problems, "\n".join(problems)
