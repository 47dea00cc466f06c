"""The smaller things a player sees (issue 22, point 12), in headless Chromium against a real casino: "My bets" names
a Banker bet's mode; on the Persian /fair/ page the cards read left to right in the order they were dealt (Player's
hand first) and seeds stay left to right; the sealed-seed lock is a drawn icon with a name, not an emoji the page has
no font for; every translated rules page says the English version prevails."""

from __future__ import annotations

import re
import time
import uuid
from decimal import Decimal

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tables.models import Round, Shoe, Table
from tables.services.placement import bet_place
from tests.browser.helpers import PASSWORD, in_own_thread, log_in, wait_until
from tests.factories import make_finished_shoe, make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)

LANGUAGES = ("en", "fa", "hi", "vi", "ru", "pt")
CLAUSE = "This page is a translation. If it differs from the English version, the English version prevails."


def in_language(browser, casino_url: str, lang: str, width: int = 1280, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def translated(lang: str, text: str) -> str:
    with translation.override(lang):
        return translation.gettext(text)


def edges(locator, side: str) -> list[float]:
    return locator.evaluate_all(f"els => els.map((e) => e.getBoundingClientRect().{side})")


def in_reading_order(chips) -> list[str]:
    """The cards' codes (their titles) as a reader sees them: top line first, each line left to right."""
    boxes = sorted(
        chips.evaluate_all(
            "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.top, r.left, e.title]; })"
        )
    )
    lines: list[list[tuple[float, str]]] = []
    line_top = None
    for top, left, title in boxes:
        if line_top is None or top - line_top > 6:  # a new line (chips of one line are within a few pixels)
            lines.append([])
            line_top = top
        lines[-1].append((left, title))
    return [title for line in lines for _, title in sorted(line)]


# ── My bets: the mode of a Banker bet ─────────────────────────────────────────


def test_my_bets_names_the_mode_of_a_banker_bet(casino_url, browser, casino_layer):
    def setup():  # in a thread of its own: an after-commit event cannot be sent beside Playwright's loop
        table = make_table("Mode table", make_variant("Mode deck"), betting_seconds=90, deal_interval_ms=100)
        user = make_user("moda", PASSWORD)
        wallet_deposit(user=user, amount=Decimal("1000.00"), reason="test funds")
        return table, user

    table, user = in_own_thread(setup)
    round_ = wait_until(
        lambda: Round.objects.filter(table=table, state=Round.State.BETTING).first(),
        timeout=60,
        interval=0.2,
        message="a betting round to open",
    )
    in_own_thread(
        bet_place,
        user=user,
        round_id=round_.pk,
        mode="no_commission",
        bets=[{"type": "banker", "amount": "10.00"}, {"type": "player", "amount": "5.00"}],
        idempotency_key=str(uuid.uuid4()),
    )
    for lang in ("en", "fa"):
        context, page = in_language(browser, casino_url, lang)
        try:
            log_in(page, casino_url, "moda")
            page.goto(f"{casino_url}/tables/{table.pk}/")
            banker = page.locator('#my-bets li[data-type="banker"]')
            expect(banker).to_have_count(1)
            expect(banker).to_have_attribute("data-mode", "no_commission")
            expect(banker.locator(".bet-name")).to_contain_text(translated(lang, "No commission"))
            # The mode changes nothing on a Player bet, so it is not named there.
            player = page.locator('#my-bets li[data-type="player"] .bet-name')
            expect(player).to_have_count(1)
            assert translated(lang, "No commission") not in player.inner_text()
            assert translated(lang, "Traditional") not in player.inner_text()
            page.screenshot(path=f"/tmp/quiet-my-bets-{lang}.png")
        finally:
            context.close()
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PAUSED)


# ── the table client: a missing required element fails loudly ─────────────────


def without_element(name: str):
    """A route handler serving the page with the element ``id=name`` renamed away (a handler of one parameter:
    Playwright passes the request too to one that takes two)."""

    def handle(route) -> None:
        response = route.fetch()
        html = re.sub(rf"""\bid=["']?{name}["']?(?=[\s>])""", "data-removed", response.text(), count=1)
        assert "data-removed" in html
        route.fulfill(response=response, body=html)

    return handle


def test_a_table_page_without_a_required_element_fails_at_once_naming_it(casino_url, browser):
    """The table client (static/casino/table/elements.js) lists the elements a page may leave out; any other one
    missing stops it at start-up with an error naming it (never a silent stand-in). The page as served starts
    with no error at all."""
    table = make_table("Elements table", make_variant("Elements deck"), betting_seconds=30, deal_interval_ms=100)
    url = f"{casino_url}/tables/{table.pk}/"
    for removed in (None, "phase"):
        context, page = in_language(browser, casino_url, "en")
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
        if removed:
            page.route(url, without_element(removed))
        try:
            page.goto(url)
            if removed is None:
                expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
                expect(page.locator("#phase")).not_to_have_text("Connecting…")
                assert errors == []
            else:
                deadline = time.monotonic() + 10
                while not errors and time.monotonic() < deadline:
                    page.wait_for_timeout(100)
                assert errors, "no error"
                assert "#phase" in errors[0], errors
                assert "required" in errors[0]
                # Nothing half-started: no socket was opened, the page says it is still connecting.
                assert page.get_attribute("#table", "data-connected") == "0"
        finally:
            context.close()
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PAUSED)


# ── /fair/ in Persian: cards as dealt, a drawn lock ──────────────────────────


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_persian_fair_page_reads_cards_as_dealt_and_draws_the_lock(casino_url, browser, size):
    variant = make_variant(f"Fair deck {size[0]}", decks=1, cut_min=6, cut_max=13)
    table = make_table(f"Fair table {size[0]}", variant, status=Table.Status.PAUSED)
    shoe = make_finished_shoe(table, 1)
    live = make_finished_shoe(table, 2)
    Shoe.objects.filter(pk=live.pk).update(finished_at=None)
    rounds = list(shoe.rounds.exclude(cards=[]).order_by("number"))

    context, page = in_language(browser, casino_url, "fa", *size)
    try:
        page.goto(f"{casino_url}/fair/?table={table.pk}")
        assert page.evaluate("document.documentElement.dir") == "rtl"
        article = page.locator(f'article.shoe[data-shoe-id="{shoe.pk}"]')
        article.locator("details.dealt summary").click()
        expect(article.locator("li.round")).to_have_count(len(rounds))
        for row, round_ in zip(article.locator("li.round").all()[:6], rounds, strict=False):
            dealt = sorted(round_.cards, key=lambda c: c["position"])
            for hand, css in (("player", "p"), ("banker", "b")):
                # Left to right, each hand's cards in the order they were dealt.
                assert in_reading_order(row.locator(f".hand-cards.{css} .pc")) == [
                    c["card"] for c in dealt if c["hand"] == hand
                ], (round_.number, hand)
            # And the Player's hand (dealt first) on the left of the Banker's.
            player_right = max(edges(row.locator(".hand-cards.p .pc"), "right"))
            assert player_right <= min(edges(row.locator(".hand-cards.b .pc"), "left")), round_.number
        for code in page.locator("code.hex").all():
            assert code.evaluate("e => getComputedStyle(e).direction") == "ltr"

        # The seed checker's whole shoe: left to right in dealing order.
        page.fill("#check-form input[name=seed]", shoe.server_seed)
        page.select_option("#check-form select[name=decks]", "1")
        page.click("#check-form button[type=submit]")
        order = page.locator("#check-result ol.order .pc")
        expect(order.first).to_be_visible()
        assert in_reading_order(order) == order.evaluate_all("els => els.map((e) => e.title)")

        # The lock: an SVG with a size and a name, no emoji anywhere in the line.
        sealed = page.locator(f'.live-shoe[data-table-id="{table.pk}"] .sealed')
        icon = sealed.locator("svg.lock-icon")
        box = icon.bounding_box()
        assert box is not None
        assert box["width"] > 4, box
        assert box["height"] > 4, box
        assert icon.get_attribute("aria-label") == translated("fa", "Sealed") != "Sealed"
        expect(page.get_by_role("img", name=translated("fa", "Sealed"))).to_have_count(1)
        assert "🔒" not in sealed.inner_text()
        assert sealed.evaluate("e => getComputedStyle(e, '::before').content") in {"none", "normal"}
        page.screenshot(path=f"/tmp/quiet-fair-fa-{size[0]}.png", full_page=True)
        sealed.screenshot(path=f"/tmp/quiet-fair-lock-{size[0]}.png")
        article.locator("ol.rounds").screenshot(path=f"/tmp/quiet-fair-rounds-{size[0]}.png")
    finally:
        context.close()


# ── the rules pages: the English version prevails ─────────────────────────────


def test_every_translated_rules_page_says_the_english_version_prevails(casino_url, browser):
    for lang in LANGUAGES:
        context, page = in_language(browser, casino_url, lang, 390, 844)
        try:
            page.goto(f"{casino_url}/rules/")
            clause = page.locator("#rules-translation")
            if lang == "en":
                expect(clause).to_have_count(0)  # the English page is no translation
                continue
            expected = translated(lang, CLAUSE)
            assert expected != CLAUSE, f"no {lang} translation"
            expect(clause).to_be_visible()
            expect(clause).to_have_text(expected)
            assert clause.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 12
            if lang in {"fa", "ru"}:
                page.screenshot(path=f"/tmp/quiet-rules-{lang}.png")
        finally:
            context.close()
