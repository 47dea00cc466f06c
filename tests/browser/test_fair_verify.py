"""The fairness page in headless Chromium against a real casino: a fast one-deck table is played until its shoe
finishes, then the page's Verify button recomputes that shoe with Web Crypto and passes; a shoe whose stored seed
or dealt card was altered fails and says what did not match; static/casino/fair.js shuffles exactly like
tables.engine.fair; the Persian page has no English left; a phone screen does not scroll sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tables import engine
from tables.engine import fair as python_fair
from tables.engine.shoe import clamp_cut_range
from tables.models import Round, Shoe, Table
from tests.browser.helpers import wait_until
from tests.factories import make_finished_shoe, make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

ZERO_SEED = "00" * 32
SEEDS = [
    ZERO_SEED,
    "ff" * 32,
    "0123456789abcdef" * 4,
    "a1" * 16,  # the shortest seed the verifier accepts (16 bytes)
    "5c" * 100,  # longer than an HMAC block: the key is hashed first
]
# Evaluated in the page: the module the page itself loaded (same URL, same instance).
IMPORT = "await import('/static/casino/fair.js')"
SETTLED_VERDICT = """(id) => {
  const out = document.querySelector(`article.shoe[data-shoe-id="${id}"] .verify-result`);
  return ["pass", "fail", "error"].includes(out.dataset.state) ? out.dataset.state : null;
}"""


@pytest.fixture
def quiet_table():
    """A paused one-deck table (the ticker leaves it alone) to hold shoes made by the test."""
    variant = make_variant("Quiet deck", decks=1, cut_min=6, cut_max=13)
    return make_table("Quiet table", variant, status=Table.Status.PAUSED)


def face(code: str) -> str:
    """A card as the page writes it: "TD" → "10♦"."""
    return ("10" if code[0] == "T" else code[0]) + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[code[1]]


def verify(page, shoe_id: int) -> str:
    page.click(f'article.shoe[data-shoe-id="{shoe_id}"] button.verify')
    handle = page.wait_for_function(SETTLED_VERDICT, arg=shoe_id, timeout=20_000)
    return handle.json_value()


def verdict_text(page, shoe_id: int) -> str:
    return page.inner_text(f'article.shoe[data-shoe-id="{shoe_id}"] .verify-result')


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# ── the algorithm: fair.js against tables.engine.fair ───────────────────────


def test_the_browser_shuffle_and_cut_equal_the_python_engine(casino_url, page):
    page.goto(casino_url + "/fair/")
    expect(page.locator("#fair")).to_have_attribute("data-ready", "1")
    for seed in SEEDS:
        for decks in (1, 6, 8):
            got = page.evaluate(
                f"async ([seed, decks]) => {{ const m = {IMPORT}; return m.shuffledCards(seed, decks); }}",
                [seed, decks],
            )
            assert got == [str(c) for c in engine.shuffled_cards(seed, decks)], (seed, decks)
        for decks, low, high in ((8, 14, 26), (1, 14, 26), (1, 0, 50), (6, 20, 20)):
            cut, commitment = page.evaluate(
                f"""async ([seed, decks, low, high]) => {{ const m = {IMPORT};
                     return [await m.cardsBehindCut(seed, decks, low, high), await m.commitment(seed)]; }}""",
                [seed, decks, low, high],
            )
            assert cut == python_fair.cards_behind_cut(seed, *clamp_cut_range(52 * decks, (low, high)))
            assert commitment == engine.commitment(seed)
    # The documented test vector (docs/provably-fair.md, section 6) through the same functions.
    first = page.evaluate(f"async () => {{ const m = {IMPORT}; return (await m.shuffledCards('{ZERO_SEED}', 8)); }}")
    assert " ".join(first[:12]) == "2C 3H 3H 5D JS 9H QS QC TD KC 4H 7H"


# ── a live table's shoe, verified in the browser ─────────────────────────────


def test_a_shoe_played_to_its_cut_card_verifies_and_tampered_shoes_fail_with_the_first_mismatch(
    casino_url, page, quiet_table
):
    variant = make_variant("Fast deck", decks=1, cut_min=13, cut_max=13)
    table = make_table("Fast fair", variant, betting_seconds=1, deal_interval_ms=50, result_seconds=0)
    table.settle_delay_ms = 0
    table.save(update_fields=["settle_delay_ms"])
    shoe = wait_until(
        lambda: Shoe.objects.filter(table=table, finished_at__isnull=False).first(),
        timeout=150,
        interval=0.25,
        message="the one-deck shoe to be dealt to its cut card and finished",
    )
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PAUSED)
    assert shoe.rounds.exclude(cards=[]).count() >= 3

    forged = make_finished_shoe(quiet_table, 1)
    Shoe.objects.filter(pk=forged.pk).update(server_seed=engine.new_server_seed())
    swapped = make_finished_shoe(quiet_table, 2)
    round_2 = swapped.rounds.get(number=2)
    cards = list(round_2.cards)
    honest = cards[2]["card"]
    cards[2] = {**cards[2], "card": "KS" if honest != "KS" else "QH"}
    Round.objects.filter(pk=round_2.pk).update(cards=cards)

    page.goto(f"{casino_url}/fair/?table={table.pk}")
    expect(page.locator(f'article.shoe[data-shoe-id="{shoe.pk}"]')).to_be_visible()
    article = page.locator(f'article.shoe[data-shoe-id="{shoe.pk}"]')
    expect(article.locator("details.dealt")).not_to_have_attribute("open", "")
    article.locator("details.dealt summary").click()
    rounds = list(shoe.rounds.exclude(cards=[]).order_by("number"))
    expect(article.locator("li.round")).to_have_count(len(rounds))
    first = rounds[0]
    player = [c["card"] for c in first.cards if c["hand"] == "player"]
    assert (
        article.locator("li.round").first.locator(".hand-cards.p .pc").evaluate_all("els => els.map((e) => e.title)")
        == player
    )
    expect(article.locator("li.round.last .cut-tag")).to_have_count(1)
    assert verify(page, shoe.pk) == "pass", verdict_text(page, shoe.pk)
    text = verdict_text(page, shoe.pk)
    assert "Verified" in text
    assert "The seed matches the commitment." in text
    dealt = sum(len(c) for c in shoe.rounds.values_list("cards", flat=True))
    assert f"All {dealt} cards" in text
    assert "Cut card: 13 cards behind it, as the seed gives" in text
    # The shoe now in play on that table shows its commitment and nothing else.
    live = Shoe.objects.filter(table=table, finished_at__isnull=True).first()
    if live is not None:
        content = page.content()
        assert live.commitment in content
        assert live.server_seed not in content

    page.goto(f"{casino_url}/fair/?table={quiet_table.pk}")
    assert verify(page, forged.pk) == "fail"
    text = verdict_text(page, forged.pk)
    assert "Verification failed." in text
    assert "The seed does not match the commitment" in text

    assert verify(page, swapped.pk) == "fail"
    text = verdict_text(page, swapped.pk)
    assert "Verification failed." in text
    assert "The seed matches the commitment." in text
    plain = text.replace("\u2066", "").replace("\u2069", "")
    assert f"Round 2, card 3: dealt {face(cards[2]['card'])}, the seed's shoe has {face(honest)}." in plain


def test_anyone_can_check_a_pasted_seed_and_see_its_shoe(casino_url, page):
    page.goto(casino_url + "/fair/")
    expect(page.locator("#fair")).to_have_attribute("data-ready", "1")
    page.fill("#check-form input[name=seed]", ZERO_SEED)
    page.fill("#check-form input[name=commitment]", engine.commitment(ZERO_SEED))
    page.select_option("#check-form select[name=decks]", "8")
    page.click("#check-form button[type=submit]")
    expect(page.locator("#check-result ol.order li")).to_have_count(416)
    titles = page.eval_on_selector_all("#check-result ol.order .pc", "els => els.map((e) => e.title)")
    assert titles == [str(c) for c in engine.shuffled_cards(ZERO_SEED, 8)]
    expect(page.locator("#check-result")).to_have_attribute("data-state", "pass")
    expect(page.locator("#check-result .cut-mark")).to_have_count(1)
    # 18 cards behind the cut card for this seed (docs: cut_index 398): the mark sits on the 399th card.
    assert (
        page.eval_on_selector_all(
            "#check-result ol.order li", "els => els.findIndex((li) => li.querySelector('.cut-mark'))"
        )
        == 398
    )

    page.fill("#check-form input[name=commitment]", "ab" * 32)
    page.click("#check-form button[type=submit]")
    expect(page.locator("#check-result")).to_have_attribute("data-state", "fail")
    expect(page.locator("#check-result")).to_contain_text("The seed does not match this commitment.")

    page.fill("#check-form input[name=seed]", "not a seed")
    page.click("#check-form button[type=submit]")
    expect(page.locator("#check-result")).to_have_attribute("data-state", "error")
    expect(page.locator("#check-result")).to_contain_text("at least 32 hexadecimal digits")


# ── Persian, and a phone ─────────────────────────────────────────────────────

# Words the Persian page rightly keeps in Latin letters: names of algorithms and of the code, card codes, hex.
KEPT = {
    "baccarat",
    "sha",
    "hmac",
    "fair",
    "js",
    "utc",
    "web",
    "crypto",
    "fisher",
    "yates",
    "big",
    "endian",
    "shuffle",
    "cut",
    "https",
}


def test_the_persian_page_has_no_english_and_a_phone_does_not_scroll_sideways(
    casino_url, browser, quiet_table, console_errors
):
    shoe = make_finished_shoe(quiet_table)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fa-IR")
    context.add_cookies([{"name": "django_language", "value": "fa", "url": casino_url}])
    page = context.new_page()
    console_errors.watch(page)
    try:
        page.goto(casino_url + "/fair/")
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        expect(page.locator("#fair")).to_have_attribute("data-ready", "1")
        assert no_sideways_scroll(page)
        page.click(f'article.shoe[data-shoe-id="{shoe.pk}"] details.dealt summary')
        assert verify(page, shoe.pk) == "pass"
        page.fill("#check-form input[name=seed]", shoe.server_seed)
        page.fill("#check-form input[name=commitment]", shoe.commitment)
        page.click("#check-form button[type=submit]")
        expect(page.locator("#check-result ol.order li")).to_have_count(52 * 8)
        assert no_sideways_scroll(page)

        text = page.evaluate(
            """() => { const c = document.querySelector("main").cloneNode(true);
                 c.querySelectorAll("script, code, .pc, .hex, [title], option").forEach((e) => e.remove());
                 return c.innerText; }"""
        )
        words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)}
        english = sorted(words - KEPT - {w.lower() for w in re.findall(r"[A-Za-z]+", quiet_table.name)})
        # card codes in the algorithm text (2C 3H …) and the version tag (v1) are not words
        english = [w for w in english if not re.fullmatch(r"[2-9tjqka][shdc]|[shdc]|v", w)]
        assert english == [], f"English left on the Persian page: {english}"
        assert "تأیید شد" in page.inner_text(f'article.shoe[data-shoe-id="{shoe.pk}"] .verify-result')
    finally:
        context.close()
    assert console_errors.unexpected() == []
