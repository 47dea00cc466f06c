"""WCAG 2.2 AA on every player page, in headless Chromium against a real casino.

axe-core (vendored under tests/browser/vendor/axe-core/, never served by the casino) runs on each page, signed in
and signed out where both exist, and on the live table mid-round with chips and bets on the felt and again at the
result: no ``serious`` or ``critical`` violation. Beside it: every visible text is at least 12 px at desktop and
phone width, every page has a skip link to its main content that shows when focused, and the table's chip group
answers the arrow keys (a roving tabindex)."""

from __future__ import annotations

import itertools
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tables.engine import roads
from tests.browser.helpers import PASSWORD, log_in
from tests.browser.test_table_roads import table_with_a_shoe  # noqa: F401 (a fixture)
from tests.factories import make_table, make_user, make_variant
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
SERIOUS = {"serious", "critical"}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
MIN_FONT_PX = 12.0

# Every visible text node's computed font size below the minimum: text, size, and the element's selector-ish path.
SMALL_TEXT = """(min) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("script, style, template, noscript, [hidden], [aria-hidden=true] svg")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    const box = el.getBoundingClientRect();
    // Visually hidden text (a 1 px clip) is read, not seen: its size does not matter.
    if (box.width <= 1 || box.height <= 1 || el.closest(".visually-hidden")) continue;
    if (!el.getClientRects().length) continue;
    let size = parseFloat(style.fontSize);
    // SVG text is drawn at its font size times the drawing's scale (a chip's value in a 44 px chip).
    const svg = el.closest("svg");
    if (svg && el instanceof SVGElement && svg.getScreenCTM()) size *= Math.abs(svg.getScreenCTM().a);
    size = Math.round(size * 100) / 100;
    if (size < min) {
      const path = [];
      for (let e = el; e && e !== document.body && path.length < 4; e = e.parentElement) {
        const classes = e.classList.length ? "." + [...e.classList].join(".") : "";
        path.unshift(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + classes);
      }
      out.push(`${size}px "${text.slice(0, 40)}" in ${path.join(" > ")}`);
    }
  }
  return [...new Set(out)];
}"""


#: Waits for the page's animations that end (the result's fade-in, a card's turn) to end; a repeating one (Confirm's
#: pulse) never does and is left running. axe-core measures colours as drawn: mid-fade, the result's badges were
#: half transparent over the felt and failed colour contrast (2.23:1), a flake that depended on timing.
ANIMATIONS_ENDED = """() => Promise.all(document.getAnimations()
  .filter((a) => Number.isFinite(a.effect.getComputedTiming().endTime))
  .map((a) => a.finished.catch(() => null)))"""


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical WCAG 2.0/2.1/2.2 A and AA violations on the page once its finite animations
    have ended."""
    page.evaluate(ANIMATIONS_ENDED)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        """async (tags) => {
          const r = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
          return r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160),
                                         summary: (n.failureSummary || "").slice(0, 300) })),
          }));
        }""",
        WCAG_TAGS,
    )
    return [v for v in result if v["impact"] in SERIOUS]


def describe(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']}")
        for node in v["nodes"][:8]:
            lines.append(
                f"    {node['target']}\n      {node['html']}\n      {node['summary']}".replace("\n  Fix", " Fix")
            )
        if len(v["nodes"]) > 8:
            lines.append(f"    … and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


def assert_accessible(page, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"axe-core on {where} ({page.url}):\n{describe(violations)}"


def small_text(page) -> list[str]:
    return page.evaluate(SMALL_TEXT, MIN_FONT_PX)


def assert_text_large_enough(page, where: str) -> None:
    """At desktop then phone width: no visible text under 12 px."""
    found = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        found += [f"{size['width']} px: {line}" for line in small_text(page)]
    page.set_viewport_size(DESKTOP)
    assert not found, f"text under {MIN_FONT_PX:g} px on {where}:\n" + "\n".join(found)


def assert_skip_link(page, where: str) -> None:
    """ "Skip to content" is the first stop of the Tab order, shows when focused, and following it puts the focus on
    <main>. (A page that focuses a field itself, the login form, starts the Tab order there: the link is then
    focused directly.)"""
    page.goto(page.url)  # a fresh load: the focus starts at the top of the document
    first = page.evaluate(
        """() => [...document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]")]
                 .find((el) => el.tabIndex >= 0 && !el.disabled && el.type !== "hidden")?.className"""
    )
    assert first == "skip-link", f"{where}: the first stop of the Tab order is {first!r}"
    if page.evaluate("document.activeElement === document.body"):
        page.keyboard.press("Tab")
    else:
        page.focus(".skip-link")
    focused = page.evaluate(
        """() => { const a = document.activeElement; const r = a.getBoundingClientRect();
                   return { cls: a.className, w: r.width, h: r.height, top: r.top, left: r.left }; }"""
    )
    assert focused["cls"] == "skip-link", f"{where}: the focus is on {focused}"
    assert min(focused["w"], focused["h"]) >= 24, f"{where}: the skip link is smaller than 24 px {focused}"
    assert min(focused["top"], focused["left"]) >= 0, f"{where}: the focused skip link is off screen {focused}"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main", f"{where}: the skip link did not move the focus"


@pytest.fixture
def player():
    user = make_user("erin", PASSWORD)
    wallet_deposit(user=user, amount=Decimal("5000.00"), reason="test funds")
    return user


@pytest.fixture
def quiet_table():
    """A table whose window stays open a long time (the pages show it live, nothing needs to settle)."""
    return make_table("Quiet table", make_variant("Quiet rules"), betting_seconds=60, deal_interval_ms=100)


def player_pages(table_id: int) -> list[tuple[str, str, bool]]:
    """(name, path, signed in) for every player page but the live table and the bet record's round detail."""
    pages = [
        ("lobby", "/", False),
        ("lobby", "/", True),
        ("multi-table", f"/multi/?t={table_id}", False),
        ("multi-table", f"/multi/?t={table_id}", True),
        ("rules", "/rules/", False),
        ("rules", "/rules/", True),
        ("table rules", f"/tables/{table_id}/rules/", False),
        ("table rules", f"/tables/{table_id}/rules/", True),
        ("fair", "/fair/", False),
        ("fair", "/fair/", True),
        ("login", "/accounts/login/", False),
        ("sign-up", "/accounts/signup/", False),
        ("profile", "/accounts/profile/", True),
        ("password change", "/accounts/password/", True),
        ("password changed", "/accounts/password/done/", True),
        ("take a break", "/accounts/break/", True),
        ("bet record (empty)", "/bets/", True),
        ("not found", "/no-such-page/", False),
        ("not found", "/no-such-page/", True),
    ]
    return pages


PAGE_NAMES = [
    "lobby",
    "multi-table",
    "rules",
    "table rules",
    "fair",
    "login",
    "sign-up",
    "profile",
    "password change",
    "password changed",
    "take a break",
    "bet record (empty)",
    "not found",
]


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_a_player_page_has_no_serious_violation_text_under_12_px_or_missing_skip_link(
    casino_url, browser, name, player, quiet_table
):
    """Each page signed out and signed in (where it exists that way): axe, text sizes, the skip link."""
    problems: list[str] = []
    for page_name, path, signed_in in player_pages(quiet_table.id):
        if page_name != name:
            continue
        context = browser.new_context(viewport=DESKTOP, locale="en-US")
        page = context.new_page()
        page.set_default_timeout(20_000)
        try:
            if signed_in:
                log_in(page, casino_url, "erin")
            page.goto(casino_url + path)
            page.wait_for_load_state("networkidle")
            who = f"{name} ({'signed in' if signed_in else 'signed out'})"
            for check in (assert_accessible, assert_text_large_enough, assert_skip_link):
                try:
                    check(page, who)
                except AssertionError as failure:
                    problems.append(str(failure))
        finally:
            context.close()
    assert not problems, "\n\n".join(problems)


def open_betting_window(page, base: str, table_id: int, min_left: int = 4) -> int:
    page.goto(f"{base}/tables/{table_id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    page.wait_for_function(
        """(min) => {
          const t = document.getElementById("table");
          return t.dataset.roundState === "betting" && t.dataset.connected === "1"
            && parseInt(document.getElementById("countdown").textContent, 10) >= min;
        }""",
        arg=min_left,
        timeout=30_000,
    )
    return int(page.get_attribute("#table", "data-round-id"))


def test_the_table_mid_round_and_at_the_result_and_the_record_of_that_round(casino_url, page, player):
    """Signed in, chips and bets on the felt (confirmed and pending), then the dealt cards and the result, then the
    bet record and the round's detail page."""
    table = make_table(
        "Access table", make_variant("Access rules"), betting_seconds=12, deal_interval_ms=150, result_seconds=4
    )
    log_in(page, casino_url, "erin")
    round_id = open_betting_window(page, casino_url, table.id, min_left=8)
    page.click("#chips button.chip[data-value='25']")
    page.locator("button.spot[data-type=player]").click()
    page.locator("button.spot[data-type=tie]").click()
    page.click("#confirm")
    expect(page.locator("#my-bets li[data-status=open]")).to_have_count(2)
    page.locator("button.spot[data-type=banker]").click()  # pending, not confirmed
    expect(page.locator("[data-pending-for=banker]")).not_to_have_text("")
    problems = []
    try:
        assert_accessible(page, "the table, betting, with bets (signed in)")
    except AssertionError as failure:
        problems.append(str(failure))

    page.wait_for_function(
        """(id) => { const r = document.getElementById("result");
                     return document.getElementById("table").dataset.roundId === String(id) && !r.hidden; }""",
        arg=round_id,
        timeout=30_000,
    )
    try:
        assert_accessible(page, "the table at the result (signed in)")
    except AssertionError as failure:
        problems.append(str(failure))

    page.wait_for_function(
        "(id) => document.getElementById('table').dataset.roundId !== String(id)", arg=round_id, timeout=30_000
    )
    for where, path in (("bet record", "/bets/"), ("round detail", f"/bets/rounds/{round_id}/")):
        page.goto(casino_url + path)
        for check in (assert_accessible, assert_text_large_enough, assert_skip_link):
            try:
                check(page, where)
            except AssertionError as failure:
                problems.append(str(failure))
    assert not problems, "\n\n".join(problems)


def test_the_table_signed_out(casino_url, page, quiet_table):
    open_betting_window(page, casino_url, quiet_table.id, min_left=2)
    problems = []
    for check in (assert_accessible, assert_skip_link):
        try:
            check(page, "the table (signed out)")
        except AssertionError as failure:
            problems.append(str(failure))
    assert not problems, "\n\n".join(problems)


def test_the_table_text_is_at_least_12_px_at_desktop_and_phone_width(casino_url, page, player, quiet_table):
    """Signed in, a chip pending on a spot: every visible text of the table at least 12 px. (The table's own sizes
    are table.css's, which the table layout work owns: the spots' names, odds and limits on a phone.)"""
    log_in(page, casino_url, "erin")
    open_betting_window(page, casino_url, quiet_table.id, min_left=2)
    page.locator("button.spot[data-type=player]").click()
    assert_text_large_enough(page, "the table (signed in)")


def test_the_chip_group_answers_the_arrow_keys_with_a_roving_tabindex(casino_url, page, player, quiet_table):
    log_in(page, casino_url, "erin")
    open_betting_window(page, casino_url, quiet_table.id, min_left=2)
    chips = page.locator("#chips button.chip")
    values = [chips.nth(i).get_attribute("data-value") for i in range(chips.count())]
    assert len(values) >= 3

    def state() -> dict:
        return page.evaluate(
            """() => { const c = [...document.querySelectorAll("#chips button.chip")];
                       const values = (keep) => c.filter(keep).map((b) => b.dataset.value);
                       return { checked: values((b) => b.getAttribute("aria-checked") === "true"),
                                tabbable: values((b) => b.tabIndex === 0),
                                focused: document.activeElement.dataset.value ?? null }; }"""
        )

    first = state()
    assert len(first["checked"]) == 1, first
    assert first["tabbable"] == first["checked"], first
    page.locator("#chips button.chip[aria-checked=true]").focus()
    start = values.index(first["checked"][0])
    page.keyboard.press("ArrowRight")
    moved = state()
    expected = values[(start + 1) % len(values)]
    assert moved == {"checked": [expected], "tabbable": [expected], "focused": expected}, moved
    page.keyboard.press("ArrowLeft")
    assert state()["checked"] == [values[start]]
    page.keyboard.press("End")
    assert state() == {"checked": [values[-1]], "tabbable": [values[-1]], "focused": values[-1]}
    page.keyboard.press("ArrowDown")  # wraps
    assert state()["checked"] == [values[0]]
    page.keyboard.press("End")
    page.keyboard.press("Home")
    assert state() == {"checked": [values[0]], "tabbable": [values[0]], "focused": values[0]}
    page.keyboard.press("ArrowUp")  # wraps backwards
    assert state()["checked"] == [values[-1]]


def test_spots_are_named_in_parts_and_the_roads_have_a_text_summary(casino_url, page, player, quiet_table):
    """A spot's name is its visible texts with separators (never run together), its description says them in words;
    the roads are hidden as drawings and summed up in a sentence."""
    log_in(page, casino_url, "erin")
    open_betting_window(page, casino_url, quiet_table.id, min_left=2)
    page.click("#chips button.chip[data-value='25']")
    page.locator("button.spot[data-type=banker]").click()
    spot = page.evaluate(
        """() => { const b = document.querySelector("button.spot[data-type=banker]");
                   const ids = (b.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
                   return { name: b.getAttribute("aria-label"),
                            description: ids.map((id) => document.getElementById(id).textContent).join(" ") }; }"""
    )
    assert spot["name"] == "Banker, 0.95:1, 1.00 – 5,000.00, 25, +25.00", spot  # 25: the chip on the felt
    assert spot["description"] == "pays 0.95 to 1, limits 1.00 – 5,000.00, to confirm 25.00", spot
    assert page.get_attribute("#roads", "aria-hidden") == "true"
    expect(page.locator("#roads-summary")).to_have_text("Scoreboard: no rounds yet in this shoe.")


def test_the_roads_summary_says_the_streak_and_the_last_ten_results(casino_url, page, request):
    """On a shoe of known rounds: the streak of the last decided winner (ties do not break it) and the last ten
    results, oldest first, as the engine's bead plate has them."""
    table, flags = request.getfixturevalue("table_with_a_shoe")
    winners = [cell["winner"] for cell in roads(flags)["bead_plate"]]
    decided = [w for w in winners if w != "tie"]
    streak = len(list(itertools.takewhile(lambda w: w == decided[-1], reversed(decided))))
    word = {"banker": "Banker", "player": "Player", "tie": "Tie"}
    expected = (
        f"{word[decided[-1]]}: {streak} win{'s' if streak != 1 else ''} in a row. "
        f"Last 10 results, oldest first: {', '.join(word[w] for w in winners[-10:])}."
    )
    page.goto(f"{casino_url}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(page.locator("#roads-summary")).to_have_text(expected)
    assert page.get_attribute("#roads", "aria-hidden") == "true"


def test_the_language_menu_waits_for_enter_under_the_keyboard_and_applies_a_pick_at_once(casino_url, page):
    """WCAG 3.2.2: an arrow key on the closed menu changes its value but does not reload the page; Enter applies it.
    A pick (as with the mouse) applies at once."""
    page.goto(casino_url + "/rules/")
    menu = page.locator("header select[name=language]")
    menu.focus()
    page.evaluate("window.__stay = true")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__stay === true"), "an arrow key reloaded the page"
    assert menu.input_value() != "en"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("html").get_attribute("lang") != "en"

    page.goto(casino_url + "/rules/")
    with page.expect_navigation():
        page.locator("header select[name=language]").select_option("en")
    assert page.locator("html").get_attribute("lang") == "en"
