"""The dealer's console (/dealer/tables/<id>/) in headless Chromium against a real casino: a dealer takes the
shift, scans and burns a new shoe, and deals a round by typing card codes as a shoe's scanner does, while two
players bet on the table page and see every card, the result and their balance change; misreads, impossible
cards and cards before the close are refused with "Scan again" and deal nothing; "Cut card out" makes the last
round of the shoe; a player is refused everywhere; the console fits a tablet in English and Persian."""

from __future__ import annotations

import contextlib
import time
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from baccarat_site import roles
from tables.models import Round, Table
from tests.browser.helpers import (
    chip,
    console,
    deal,
    funded_players,
    live_table,
    log_in,
    open_console,
    scan,
    take_shift_and_burn,
    wait_for_betting,
    wait_for_close,
)
from tests.factories import make_staff

# Every test here has the casino audit its dealer (the shift, the burn, the cut card).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("content_type_ids_kept")]
SHOTS = Path("/tmp/dealer-console")
START = Decimal("1000.00")


@pytest.fixture
def dealer(content_type_ids_kept):
    return make_staff("dora", roles.DEALERS, first_name="Dora")


@pytest.fixture
def players(content_type_ids_kept):
    return funded_players("carol", "dave", amount=START)


def expect_rescan(page, code: str) -> None:
    rescan = page.locator("#dc-rescan")
    expect(rescan).to_be_visible()
    expect(rescan).to_have_attribute("data-code", code)
    expect(rescan.locator(".dc-rescan-title")).to_have_text("Scan again")
    assert page.locator("#dc-rescan-detail").inner_text().strip(), "the server's detail is shown"


def api_cards(page, base: str, table: Table) -> list[dict]:
    state = page.request.get(f"{base}/api/dealer/tables/{table.pk}/").json()
    return state["round"]["cards"] if state["round"] else []


def test_a_full_live_round_dealt_by_keyboard_reaches_two_players(
    casino_url, browser, page, dealer, players, console_errors
):
    table = live_table("Live table", betting_seconds=15)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    expect(page.locator("#dc-table-name")).to_have_text("Live table")
    page.click("#dc-shift")
    expect(page.locator("#dc-dealer")).to_have_text("Dora")
    expect(console(page)).to_have_attribute("data-on-shift", "1")

    contexts, pages = [], []
    for user in players:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        player_page = context.new_page()
        player_page.set_default_timeout(20_000)
        console_errors.watch(player_page)
        log_in(player_page, casino_url, user.username)
        player_page.goto(f"{casino_url}/tables/{table.pk}/")
        expect(player_page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
        expect(player_page.locator("#balance")).to_have_text("1,000.00")
        contexts.append(context)
        pages.append(player_page)
    try:
        take_shift_and_burn(page, "5H")
        round_id = int(console(page).get_attribute("data-round-id") or 0) or None
        carol, dave = pages
        ids = {wait_for_betting(p, min_left=3) for p in pages}
        assert len(ids) == 1
        (round_id,) = ids
        chip(carol, 25)
        carol.locator("button.spot[data-type=player]").click()
        carol.locator("button.spot[data-type=player]").click()
        carol.click("#confirm")
        chip(dave, 25)
        dave.locator("button.spot[data-type=banker]").click()
        dave.click("#confirm")
        for p, balance in ((carol, "950.00"), (dave, "975.00")):
            expect(p.locator("#notice")).to_have_text("Bets confirmed")
            expect(p.locator("#balance")).to_have_text(balance)

        # A card typed while betting is open is refused (and the round goes on).
        wait_for_close(page)
        assert console(page).get_attribute("data-round-id") == str(round_id)
        # Player 7 stands; Banker 5 draws against a standing Player: only the Banker has a third card.
        deal(page, [("3H", "P1"), ("2C", "B1"), ("4D", "P2"), ("3S", "B2")])
        expect(page.locator("#dc-expect-big")).to_have_text("Banker 3")
        expect(page.locator("#dc-expect")).to_have_attribute("data-hand", "banker")
        expect(page.locator("#dc-player-total")).to_have_text("7")
        expect(page.locator("#dc-banker-total")).to_have_text("5")
        deal(page, [("KD", "B3")])
        expect(page.locator("#dc-winner")).to_have_text("Player wins", timeout=10_000)
        expect(page.locator("#dc-player-cards li")).to_have_count(2)
        expect(page.locator("#dc-banker-cards li")).to_have_count(3)
        assert page.locator("#dc-banker-cards li").evaluate_all("els => els.map(e => e.dataset.card)") == [
            "2C",
            "3S",
            "KD",
        ]

        for p in pages:
            expect(p.locator("#player-cards .card")).to_have_count(2, timeout=15_000)
            expect(p.locator("#banker-cards .card")).to_have_count(3)
            shown = p.locator("#player-cards .card, #banker-cards .card").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert sorted(shown) == sorted(["3H", "4D", "2C", "3S", "KD"])
            expect(p.locator("#result")).to_have_attribute("data-winner", "player", timeout=15_000)
        expect(carol.locator("#balance")).to_have_text("1,050.00", timeout=15_000)  # 50 on Player, paid 1:1
        expect(dave.locator("#balance")).to_have_text("975.00")  # 25 on Banker, lost
        played = Round.objects.get(pk=round_id)
        assert [c["card"] for c in played.cards] == ["3H", "2C", "4D", "3S", "KD"]
        assert played.winner == "player"
        expect(page.locator("#dc-scan-input")).to_be_focused()
    finally:
        for context in contexts:
            context.close()


def test_a_misread_and_an_impossible_card_say_scan_again_and_deal_nothing(casino_url, page, dealer, console_errors):
    console_errors.allow(r"409")
    table = live_table("One deck", decks=1)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    take_shift_and_burn(page, "5H")
    wait_for_close(page)

    scan(page, "ZZ")
    expect_rescan(page, "rescan")
    expect(console(page)).to_have_attribute("data-cards", "0")
    expect(page.locator("#dc-expect-big")).to_have_text("Player 1")  # still expecting the same card
    assert api_cards(page, casino_url, table) == []

    scan(page, "10h")  # a ten typed as 10, in lower case, is the ten of hearts
    expect(console(page)).to_have_attribute("data-cards", "1")
    expect(page.locator("#dc-rescan")).to_be_hidden()
    expect(page.locator("#dc-player-cards li")).to_have_attribute("data-card", "TH")

    # A one-deck shoe holds one 5♥, and it was the burn card; one 10♥, just dealt.
    for impossible in ("5H", "TH"):
        scan(page, impossible)
        # This scan's own refusal (the last one's banner says the same): a click before it lands is dropped with it.
        expect(page.locator("#dc-scan-last")).to_have_text(impossible)
        expect_rescan(page, "card_impossible")
        expect(console(page)).to_have_attribute("data-cards", "1")
        expect(console(page)).to_have_attribute("data-next", "B1")
    assert [c["card"] for c in api_cards(page, casino_url, table)] == ["TH"]

    page.click("#dc-picker button[data-card='9C']")  # the picker scans too
    expect(console(page)).to_have_attribute("data-cards", "2")
    expect(page.locator("#dc-banker-cards li")).to_have_attribute("data-card", "9C")
    expect(page.locator("#dc-rescan")).to_be_hidden()


def test_a_state_read_that_hangs_does_not_hold_the_scans_queued_behind_it(casino_url, page, dealer):
    """Each scan waits for the state read after it; a read that never answers is given up after 5 s
    (static/casino/dealer/console.js, READ_TIMEOUT_MS), so the next card still goes to the server."""
    table = live_table("Hung read", decks=1)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    take_shift_and_burn(page, "5H")
    wait_for_close(page)

    state_url = f"{casino_url}/api/dealer/tables/{table.pk}/"
    held = []

    def hang_reads(route):
        if route.request.method == "GET":
            held.append(route)  # never answered while the route is in place
        else:
            route.continue_()

    page.route(state_url, hang_reads)
    scan(page, "TH")
    scan(page, "9C")
    deadline = time.monotonic() + 15
    while len(api_cards(page, casino_url, table)) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert [c["card"] for c in api_cards(page, casino_url, table)] == ["TH", "9C"]
    assert held, "the console read the state while the route held it"

    page.unroute(state_url)
    for route in held:
        with contextlib.suppress(Exception):  # the page gave up on it already
            route.continue_()
    expect(console(page)).to_have_attribute("data-cards", "2", timeout=10_000)


def test_a_card_before_betting_closes_is_refused(casino_url, page, dealer, console_errors):
    console_errors.allow(r"409")
    table = live_table("Early card", betting_seconds=10)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    take_shift_and_burn(page, "AS")
    expect(console(page)).to_have_attribute("data-round-state", "betting", timeout=10_000)
    expect(page.locator("#dc-expect-big")).to_have_text("Wait for the close")
    assert page.locator("#dc-countdown").inner_text().strip().isdigit()
    scan(page, "7H")
    expect_rescan(page, "betting_open")
    expect(console(page)).to_have_attribute("data-cards", "0")
    expect(console(page)).to_have_attribute("data-round-state", "betting")
    assert api_cards(page, casino_url, table) == []


def test_cut_card_out_makes_this_round_the_last_and_a_new_shoe_waits_for_its_burn(casino_url, page, dealer):
    table = live_table("Cut card")
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    take_shift_and_burn(page, "2D")
    expect(page.locator("#dc-shoe-number")).to_have_text("1")
    expect(console(page)).to_have_attribute("data-round-state", "betting", timeout=10_000)
    round_id = int(console(page).get_attribute("data-round-id"))
    page.click("#dc-cut")
    expect(console(page)).to_have_attribute("data-cut-card", "1")
    expect(page.locator("#dc-cut")).to_be_disabled()
    expect(page.locator("#dc-cut-card")).to_have_text("Out: last round of the shoe")
    assert Round.objects.get(pk=round_id).is_last_of_shoe

    wait_for_close(page)
    deal(page, [("8S", "P1"), ("2C", "B1"), ("KD", "P2"), ("3S", "B2")])  # Player's natural 8: four cards
    expect(page.locator("#dc-winner")).to_have_text("Player wins", timeout=10_000)
    # The shoe ends with its last round; the next one waits for the dealer's shuffle and burn card.
    expect(page.locator("#dc-shoe-number")).to_have_text("2", timeout=20_000)
    expect(console(page)).to_have_attribute("data-waiting-for", "burn_card")
    expect(page.locator("#dc-expect-big")).to_have_text("Scan the burn card")
    expect(console(page)).to_have_attribute("data-cut-card", "0")
    assert not Round.objects.filter(table=table).exclude(pk=round_id).exists()


def test_a_signed_in_player_is_refused_the_console_and_its_api(casino_url, page, players, console_errors):
    console_errors.allow(r"403")
    table = live_table("Guarded")
    log_in(page, casino_url, "carol")
    for url in ("/dealer/", f"/dealer/tables/{table.pk}/"):
        response = page.goto(casino_url + url)
        assert response.status == 403, url
        expect(page.locator("[data-status='403']")).to_be_visible()
    api = f"{casino_url}/api/dealer/tables/{table.pk}/"
    got = page.request.get(api)
    assert got.status == 403
    assert got.json()["code"] == "not_dealer"
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    for path, body in (("cards/", {"card": "AS"}), ("shift/", {}), ("burn/", {})):
        posted = page.request.post(api + path, data=body, headers={"X-CSRFToken": csrf, "Referer": casino_url + "/"})
        assert posted.status == 403, path
        assert posted.json()["code"] == "not_dealer"
    assert Table.objects.get(pk=table.pk).dealer_id is None


def fits(page, width: int, height: int, where: str) -> None:
    """The expected card, the picker (every button at least 44 px), the scan field and the buttons are on screen."""
    for selector in ("#dc-expect", "#dc-picker", "#dc-scan-input", "#dc-cut", "#dc-supervisor"):
        box = page.locator(selector).bounding_box()
        assert box is not None, (where, selector)
        assert box["x"] >= 0, (where, selector, box)
        assert box["y"] >= 0, (where, selector, box)
        assert box["x"] + box["width"] <= width + 0.5, (where, selector, box)
        assert box["y"] + box["height"] <= height + 0.5, (where, selector, box)
    sizes = page.locator("#dc-picker button").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    assert len(sizes) == 52
    assert min(w for w, _ in sizes) >= 44, (where, sizes[:3])
    assert min(h for _, h in sizes) >= 44, (where, sizes[:3])


PHONE_FIT = r"""() => {
  const box = (el) => el.getBoundingClientRect();
  const picks = [...document.querySelectorAll("#dc-picker button")].map(box);
  const big = document.getElementById("dc-expect-big");
  const text = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getBoundingClientRect();
  };
  const shoe = [...document.querySelectorAll("#dc-shoe > div")].map((d) => {
    const label = text(d.querySelector("dt")), value = text(d.querySelector("dd"));
    return {label: [label.left, label.right], value: [value.left, value.right]};
  });
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth,
          picks: picks.map((r) => [r.left, r.right, r.width, r.height]),
          big: [big.scrollWidth, big.clientWidth], shoe};
}"""


def fits_a_phone(page, lang: str) -> None:
    """On a 390-px phone (a supervisor on the floor): nothing wider than the screen, every picker button on it and
    at least 44 px, the expected card inside its box, and each shoe number under its label (in Persian too)."""
    m = page.evaluate(PHONE_FIT)
    assert m["scroll"] <= m["inner"], (lang, m["scroll"])
    assert len(m["picks"]) == 52
    for left, right, width, height in m["picks"]:
        assert left >= 0, (lang, left)
        assert right <= m["inner"] + 0.5, (lang, right)
        assert min(width, height) >= 44, (lang, width, height)
    assert m["big"][0] <= m["big"][1] + 1, (lang, "the expected card overflows its box", m["big"])
    for fact in m["shoe"]:
        edge = 1 if lang == "fa" else 0  # the side text starts from: the right in Persian
        assert abs(fact["label"][edge] - fact["value"][edge]) <= 1, (lang, fact)


def test_the_console_fits_a_tablet_in_english_and_persian(casino_url, browser, dealer):
    SHOTS.mkdir(parents=True, exist_ok=True)
    table = live_table("Tablet table")
    pages, contexts = {}, []
    try:
        for lang in ("en", "fa"):
            context = browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-US")
            context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(20_000)
            log_in(page, casino_url, "dora")
            open_console(page, casino_url, table)
            pages[lang] = page
        en, fa = pages["en"], pages["fa"]
        take_shift_and_burn(en, "5H")
        wait_for_close(en)
        deal(en, [("3H", "P1"), ("2C", "B1"), ("4D", "P2")])
        expect(console(fa)).to_have_attribute("data-cards", "3")
        expect(fa.locator("#dc-expect")).to_have_attribute("data-hand", "banker")
        assert fa.get_attribute("html", "dir") == "rtl"
        for lang, page in pages.items():
            for width, height in ((1024, 768), (768, 1024), (1366, 768)):
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(150)
                fits(page, width, height, f"{lang} {width}x{height}")
                page.screenshot(path=str(SHOTS / f"console-{lang}-{width}x{height}.png"))
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(150)
            fits_a_phone(page, lang)
            page.screenshot(path=str(SHOTS / f"console-{lang}-390x844.png"), full_page=True)
            page.set_viewport_size({"width": 1024, "height": 768})

        # A misread, then the supervisor called: the banner and the call push nothing off the screen.
        scan(en, "ZZ")
        expect(en.locator("#dc-rescan")).to_be_visible()
        en.click("#dc-supervisor")
        en.fill("#dc-reason-input", "card on the floor")
        en.click("#dc-reason-ok")
        for lang, page in pages.items():
            expect(page.locator("#dc-paused")).to_be_visible(timeout=10_000)
            expect(page.locator("#dc-call")).to_be_visible()
            page.wait_for_timeout(150)
            fits(page, 1024, 768, f"{lang} paused")
            page.screenshot(path=str(SHOTS / f"console-{lang}-1024x768-paused.png"))
        expect(en.locator("#dc-paused")).to_have_text("Paused: the supervisor is on the way")
        expect(en.locator("#dc-call-text")).to_contain_text("card on the floor")
        # The dealer's own words, in whatever script, keep their order inside the Persian sentence.
        assert fa.inner_text("#dc-call-text").startswith("توسط \u2068")
    finally:
        for context in contexts:
            context.close()


def test_a_scan_whose_answer_is_lost_is_sent_again_with_its_key_and_dealt_once(
    casino_url, page, dealer, console_errors
):
    """The scan reaches the server and is dealt, but its answer never reaches the console (a dropped connection):
    the console sends the same scan again with the same Idempotency-Key, the server answers the first answer, and
    the card is dealt once (it was dealt twice, as P1 and B1, when a retry was a new scan)."""
    console_errors.allow(r"ERR_CONNECTION_RESET")  # the answer this test drops
    table = live_table("Lost answer", decks=1)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    take_shift_and_burn(page, "5H")
    wait_for_close(page)

    cards_url = f"{casino_url}/api/dealer/tables/{table.pk}/cards/"
    keys = []

    def drop_first_answer(route):
        keys.append(route.request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.fetch()  # the server deals the card ...
            route.abort("connectionreset")  # ... and the answer is lost on the way back
        else:
            route.continue_()

    page.route(cards_url, drop_first_answer)
    scan(page, "4H")
    deadline = time.monotonic() + 15
    while len(keys) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    expect(page.locator("#dc-scan-last")).to_contain_text("Dealt", timeout=10_000)  # the resend's answer
    expect(console(page)).to_have_attribute("data-cards", "1")
    expect(page.locator("#dc-rescan")).to_be_hidden()
    page.unroute(cards_url)
    assert len(keys) >= 2, keys
    assert keys[0], keys
    assert len(set(keys)) == 1, keys  # every attempt carried the one key
    assert [c["card"] for c in api_cards(page, casino_url, table)] == ["4H"]
    expect(console(page)).to_have_attribute("data-next", "B1")
