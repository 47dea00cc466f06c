"""The live lobby (/) in headless Chromium against a real casino: a table's tile follows its rounds and countdown
over ws/lobby/ without a reload, shows a pause made through the operators' service, and fits a phone's screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tables.models import Round, Table
from tables.services.controls import table_pause, table_resume
from tests.browser.helpers import in_own_thread
from tests.factories import make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

# Records, from inside the page, every round id, round state and countdown text a tile shows, in order: short
# states are seen as they happened, not sampled.
RECORDER = """(id) => {
  const tile = document.querySelector(`.tile[data-table-id="${id}"]`);
  const rec = { rounds: [], states: [], countdown: [], loads: window.__loads = (window.__loads || 0) + 1 };
  const note = (list, v) => { if (v && (!list.length || list[list.length - 1] !== v)) list.push(v); };
  const look = () => {
    note(rec.rounds, tile.dataset.roundId);
    note(rec.states, tile.dataset.roundState);
    note(rec.countdown, tile.querySelector('[data-field="countdown"]').textContent);
  };
  look();
  new MutationObserver(look).observe(tile, { attributes: true, childList: true, subtree: true, characterData: true });
  window.__lobby = rec;
}"""


@pytest.fixture
def fast_table():
    variant = make_variant("Lobby rules")
    return make_table("Lobby table", variant, betting_seconds=4, deal_interval_ms=100, result_seconds=1)


def tile(page, table):
    return page.locator(f'.tile[data-table-id="{table.id}"]')


def test_a_tile_follows_the_rounds_and_the_countdown_without_a_reload_and_shows_a_pause(
    casino_url, page, fast_table, casino_layer
):
    page.goto(casino_url + "/")
    expect(page.locator("#lobby")).to_have_attribute("data-connected", "1", timeout=15_000)
    expect(tile(page, fast_table)).to_have_attribute("href", f"/tables/{fast_table.id}/")
    expect(tile(page, fast_table).locator('[data-field="name"]')).to_have_text("Lobby table")
    page.evaluate(RECORDER, fast_table.id)

    # Two rounds opening, each with a running countdown, all on the same page load.
    page.wait_for_function(
        """() => {
          const r = window.__lobby;
          const seconds = new Set(r.countdown.map((t) => parseInt(t, 10)).filter((n) => n > 0));
          return r.rounds.length >= 3 && r.states.includes("betting")
            && (r.states.includes("result") || r.states.includes("settled")) && seconds.size >= 2;
        }""",
        timeout=45_000,
    )
    recorded = page.evaluate("window.__lobby")
    assert recorded["loads"] == 1
    assert [int(r) for r in recorded["rounds"]] == sorted(int(r) for r in recorded["rounds"])
    countdown = [int(t) for t in recorded["countdown"] if t.isdigit()]
    assert max(countdown) <= 4
    shown = int(tile(page, fast_table).get_attribute("data-round-id") or 0)
    assert Round.objects.filter(pk=shown, table=fast_table).exists()
    # Its results are on the tile's roads, and the shoe's percentages add up.
    page.wait_for_function(
        """(id) => {
          const t = document.querySelector(`.tile[data-table-id="${id}"]`);
          const pct = (side) => parseFloat(t.querySelector(`[data-field="${side}_pct"]`).textContent);
          const total = pct("banker") + pct("player") + pct("tie");
          return t.querySelectorAll("svg[data-road=bead_plate] .cell").length >= 1
            && t.querySelectorAll("svg[data-road=big_road] .cell").length >= 1 && Math.abs(total - 100) < 0.2;
        }""",
        arg=fast_table.id,
    )

    # The operator pauses the table (the admin's service): the tile says so, greyed, with the public message.
    in_own_thread(table_pause, table_id=fast_table.id, reason="Dealer change")
    expect(tile(page, fast_table)).to_have_attribute("data-status", "paused", timeout=15_000)
    expect(tile(page, fast_table)).to_have_class(re.compile(r"\binactive\b"))
    expect(tile(page, fast_table).locator('[data-field="status"]')).to_have_text("Paused")
    # Never the operator's "Dealer change": the public message is "Paused", already the status, so said once.
    expect(tile(page, fast_table).locator('[data-field="reason"]')).to_have_text("")
    assert "Dealer change" not in page.content()
    expect(tile(page, fast_table).locator('[data-field="countdown"]')).to_have_text("")

    in_own_thread(table_resume, table_id=fast_table.id)
    expect(tile(page, fast_table)).to_have_attribute("data-status", "open", timeout=15_000)
    expect(tile(page, fast_table).locator('[data-field="status-box"]')).to_be_hidden()
    assert page.evaluate("window.__lobby.loads") == 1  # never reloaded

    tile(page, fast_table).click()
    page.wait_for_url(f"{casino_url}/tables/{fast_table.id}/")


def test_the_lobby_fits_a_phone_screen(casino_url, browser, console_errors, fast_table):
    make_table("A table with a rather long name for a phone", fast_table.variant)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    console_errors.watch(page)
    try:
        for lang in ("en", "fa"):
            context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
            page.goto(casino_url + "/")
            expect(page.locator("#lobby")).to_have_attribute("data-connected", "1", timeout=15_000)
            expect(page.locator(".tile")).to_have_count(2)
            page.wait_for_function("() => document.querySelector('.tile svg[data-road=big_road]') !== null")
            wide = page.evaluate(
                """() => [...document.querySelectorAll("body *")]
                  .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5
                    && !el.closest(".road-scroll") && getComputedStyle(el).position !== "absolute")
                  .map((el) => el.tagName + "." + el.className)"""
            )
            assert wide == [], lang
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), lang
    finally:
        context.close()

        Table.objects.update(status=Table.Status.PAUSED, next_action_at=None)
    assert console_errors.unexpected() == []
