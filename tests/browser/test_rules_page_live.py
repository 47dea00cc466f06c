"""The rules pages in headless Chromium against a live casino: a table's exact odds follow its variant, the
Persian and Hindi pages are fully translated, and a phone never scrolls sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.factories import make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

# What the odds table shows for one bet: its house-edge cell.
EDGE = "#odds tr[data-bet='{bet}'][data-mode='traditional'] td.edge"

# Every visible text of the rules article, with its element's tag.
TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.getElementById("rules"), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/[\\u2066-\\u2069]/g, "").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("script, style")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    out.push({tag: el.tagName.toLowerCase(), text});
  }
  return out;
}"""

# Every element of the page that reaches past the right edge of the screen (or the left, right to left).
TOO_WIDE = """() => {
  const width = window.innerWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width && (box.right > width + 0.5 || box.left < -0.5)) {
      out.push(`${el.tagName}.${el.className} ${Math.round(box.left)}–${Math.round(box.right)}`);
    }
  }
  return out;
}"""


def open_rules(browser, casino_url: str, table_id: int, lang: str, width: int = 1280, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def test_a_tables_rules_show_its_exact_odds_and_follow_a_change_of_variant(casino_url, page):
    table = make_table("Odds table", make_variant("Odds 8:1"), betting_seconds=30)
    page.goto(f"{casino_url}/tables/{table.id}/rules/")
    expect(page.locator(EDGE.format(bet="banker"))).to_have_text("1.06%")
    expect(page.locator(EDGE.format(bet="tie"))).to_have_text("14.36%")
    expect(page.locator(EDGE.format(bet="player"))).to_have_text("1.24%")
    expect(page.locator("#odds tr[data-bet='tie'] td").first).to_have_text("8:1")

    table.variant = make_variant("Odds 9:1", paytable={"tie": "9"})
    table.save(update_fields=["variant"])
    page.reload()
    expect(page.locator(EDGE.format(bet="tie"))).to_have_text("4.84%")
    expect(page.locator("#odds tr[data-bet='tie'] td").first).to_have_text("9:1")
    expect(page.locator(EDGE.format(bet="banker"))).to_have_text("1.06%")


@pytest.mark.parametrize("lang", ["fa", "hi"])
def test_the_persian_and_hindi_rules_have_no_english_paragraphs(casino_url, browser, console_errors, lang):
    table = make_table("Rules table", make_variant("Rules variant"), betting_seconds=30)
    context, page = open_rules(browser, casino_url, table.id, lang)
    console_errors.watch(page)
    try:
        for path in (f"/tables/{table.id}/rules/", "/rules/"):
            page.goto(casino_url + path)
            expect(page.locator("html")).to_have_attribute("lang", lang)
            texts = page.evaluate(TEXTS)
            assert len([t for t in texts if t["tag"] == "p"]) >= 15, "the rules were read"
            english = []
            for item in texts:
                # Names are the same in every language: the table's, the variant's and the RTP abbreviation.
                text = item["text"]
                for name in ("Rules table", "Rules variant", "Baccarat", "RTP"):
                    text = text.replace(name, "")
                if re.search(r"[A-Za-z]{3,}", text):
                    english.append(f"<{item['tag']}> {item['text']}")
            assert not english, f"English left on {path} in {lang}:\n" + "\n".join(english)
    finally:
        context.close()
    assert not console_errors.unexpected(), console_errors.unexpected()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_on_a_phone_nothing_is_wider_than_the_screen(casino_url, browser, console_errors, lang):
    table = make_table("Phone rules", make_variant("Phone variant"), betting_seconds=30)
    context, page = open_rules(browser, casino_url, table.id, lang, width=390, height=844)
    console_errors.watch(page)
    try:
        for path in (f"/tables/{table.id}/rules/", "/rules/"):
            page.goto(casino_url + path)
            expect(page.locator(EDGE.format(bet="banker"))).to_have_text("1.06%")
            sizes = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert sizes[0] <= sizes[1], f"{path} scrolls sideways in {lang}: {sizes}"
            assert page.evaluate(TOO_WIDE) == [], path
            # The odds table is a stack of cards on a phone: each bet's row is no wider than the screen.
            row = page.locator("#odds tr[data-bet='banker'][data-mode='traditional']").bounding_box()
            assert row["width"] <= 390
    finally:
        context.close()
    assert not console_errors.unexpected(), console_errors.unexpected()
