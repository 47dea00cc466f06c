"""The card reveal on the table page (static/casino/table/reveal.js): a card lands face-down and turns before it
counts (its hand's total is written when the turn ends, never before); the round's last card may be squeezed
(dragged or held to peel it) and turns by itself on time if the player does nothing, before the next frame is
due; the result shows after the last turn; `prefers-reduced-motion` shows every card and total at once; the
sound cues (a card turning, the result) keep to the mute switch.

Most tests feed the page frames as the server sends them (``window.casinoTable.handle``) on a table the ticker
leaves alone, so the timings are the test's; one watches real rounds dealt by the running casino."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tables.engine import commitment, deal_round, new_shoe, parse_cards, roads
from tables.models import Round, Shoe
from tables.selectors.tables import cards_with_totals
from tests.factories import make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

ROUND_ID = 1_000_000  # newer than any stored round, so the page takes the fed frames
# Player 5 draws a 4 (9), Banker 6 stands: five cards, the fifth the last; values 2 3 3 3 4 (never 0, so a
# total written early would show).
THIRD_CARD_ROUND = "2H 3D 3C 3S 4D"
NATURAL_ROUND = "4H 3D 5C 4S"  # Player 9, Banker 7: four cards, the fourth the last

# Every card the page adds, the total of its hand at that moment, and the moment it has turned (data-revealed),
# with the total then; the moment the result shows, and how many cards were still face-down.
RECORDER = """() => {
  const log = (window.__rev = []);
  const now = () => performance.now();
  for (const hand of ["player", "banker"]) {
    const cards = document.getElementById(hand + "-cards");
    const total = document.getElementById(hand + "-total");
    new MutationObserver((mutations) => {
      for (const m of mutations) {
        if (m.type === "childList") {
          for (const n of m.addedNodes) {
            if (!n.classList || !n.classList.contains("card")) continue;
            log.push({ kind: "card", hand, card: n.dataset.card, position: Number(n.dataset.position), t: now(),
                       total: total.textContent, revealed: n.dataset.revealed === "1",
                       squeeze: n.classList.contains("squeeze"), label: n.getAttribute("aria-label") });
          }
        } else if (m.attributeName === "data-revealed" && m.target.dataset.revealed === "1") {
          log.push({ kind: "revealed", hand, position: Number(m.target.dataset.position), t: now(),
                     total: total.textContent, label: m.target.getAttribute("aria-label") });
        }
      }
    }).observe(cards, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-revealed"] });
  }
  const result = document.getElementById("result");
  new MutationObserver(() => {
    if (!result.hidden) log.push({ kind: "result", t: now(),
      facedown: document.querySelectorAll("#hands .card:not([data-revealed])").length });
  }).observe(result, { attributes: true, attributeFilter: ["hidden"] });
}"""

# Counts the oscillators sound.js starts (each tone is one), with their frequencies.
AUDIO_SPY = """
(() => {
  window.__oscillators = [];
  const proto = window.AudioContext && window.AudioContext.prototype;
  if (!proto) return;
  const create = proto.createOscillator;
  proto.createOscillator = function () {
    const osc = create.call(this);
    window.__oscillators.push({ osc, t: performance.now() });
    return osc;
  };
})();
"""


def baccarat_total(codes: list[str]) -> int:
    return sum(min(10, "A23456789TJQK".index(code[0]) + 1) % 10 for code in codes) % 10


@pytest.fixture
def quiet_table():
    """A table with a shoe and no round, whose next step is a day away: only the fed frames move the page."""
    now = timezone.now()
    table = make_table("Reveal", make_variant("Baccarat"), next_action_at=now + timedelta(days=1))
    state = new_shoe(8, seed_hex=hashlib.sha256(b"test-reveal").hexdigest())
    Shoe.objects.create(
        table=table,
        number=1,
        state=state.to_dict(),
        server_seed=state.seed,
        commitment=commitment(state.seed),
        burn_card=str(state.burn_card),
        burn_count=state.burn_count,
    )
    return table


class Feeder:
    """Frames for one fed round, as the server sends them."""

    def __init__(self, page, table, round_id: int, cards: str, deal_interval_ms: int) -> None:
        self.page, self.table, self.round_id, self.interval = page, table, round_id, deal_interval_ms
        self.result = deal_round(parse_cards(cards))
        entries = [
            {"hand": hand, "card": str(card), "position": i}
            for i, (hand, card) in enumerate(self.result.cards_in_deal_order(), start=1)
        ]
        self.cards = cards_with_totals(entries)

    def feed(self, frame: dict[str, Any]) -> None:
        frame = {"table_id": self.table.id, "round_id": self.round_id, "number": 1, **frame}
        self.page.evaluate("(frame) => window.casinoTable.handle(frame)", frame)

    def open_and_close(self) -> None:
        now = timezone.now()
        self.feed(
            {
                "type": "round.opened",
                "closes_at": (now + timedelta(seconds=15)).isoformat(),
                "betting_seconds": 15,
                "deal_interval_ms": self.interval,
                "bet_types": [],
                "server_time": now.isoformat(),
            }
        )
        self.feed({"type": "round.closed", "closed_at": now.isoformat()})

    def deal(self, index: int) -> dict[str, Any]:
        entry = self.cards[index]
        last = index == len(self.cards) - 1
        self.feed(
            {
                "type": "card.dealt",
                "hand": entry["hand"],
                "card": entry["card"],
                "position": entry["position"],
                "last": last,
                "totals": entry["totals"],
                "player_total": entry["totals"]["player"],
                "banker_total": entry["totals"]["banker"],
                "cards_left": 300,
            }
        )
        return entry

    def finish(self) -> None:
        r = self.result
        self.feed(
            {
                "type": "round.result",
                "cards": self.cards,
                "winner": r.winner,
                "player_total": r.player_total,
                "banker_total": r.banker_total,
                "flags": r.flags(),
                "roads": roads([r.flags()]),
            }
        )


def open_page(page, casino_url: str, table) -> None:
    page.goto(f"{casino_url}/tables/{table.id}/")
    page.wait_for_selector("#table[data-connected='1']")
    page.wait_for_function("document.getElementById('phase').dataset.phase === 'waiting'")
    page.evaluate(RECORDER)


def events(page) -> list[dict[str, Any]]:
    return page.evaluate("window.__rev")


def card_selector(position: int) -> str:
    return f"#hands .card[data-position='{position}']"


def check_turn_then_total(log: list[dict[str, Any]], cards: list[dict[str, Any]]) -> None:
    """Each card: face-down and not counted when it lands, counted when it has turned, on time."""
    by_position = {c["position"]: c for c in cards}
    landed = {e["position"]: e for e in log if e["kind"] == "card"}
    turned = {e["position"]: e for e in log if e["kind"] == "revealed"}
    assert sorted(landed) == sorted(by_position), log
    for position, entry in by_position.items():
        hand = entry["hand"]
        before = [c["card"] for p, c in by_position.items() if p < position and c["hand"] == hand]
        land, turn = landed[position], turned[position]
        assert not land["revealed"], f"card {position} landed face-up"
        assert land["total"] == (str(baccarat_total(before)) if before else ""), (
            f"card {position} ({entry['card']}): the {hand} total read {land['total']!r} before the card turned"
        )
        assert land["label"].startswith("Face-down card"), f"card {position} is named {land['label']!r} before it turns"
        assert turn["total"] == str(entry["totals"][hand]), f"card {position}: total {turn['total']!r} after the turn"
        assert turn["t"] - land["t"] >= 100, (
            f"card {position} did not turn: counted {turn['t'] - land['t']:.0f} ms after"
        )


def test_a_card_turns_before_it_counts_and_the_result_shows_after_the_last_turn(casino_url, page, quiet_table):
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, THIRD_CARD_ROUND, deal_interval_ms=1200)
    round_.open_and_close()
    for i in range(len(round_.cards)):
        round_.deal(i)
        page.wait_for_timeout(1200)  # the deal interval: the server's next frame
    round_.finish()
    page.wait_for_selector("#result:not([hidden])")
    log = events(page)
    check_turn_then_total(log, round_.cards)
    # Every card had turned before the next frame (ordinary cards well before; the last one by 90 % of the interval).
    turned = [e for e in log if e["kind"] == "revealed"]
    for e in turned:
        landed = next(x for x in log if x["kind"] == "card" and x["position"] == e["position"])
        assert e["t"] - landed["t"] <= 1200 * 0.9 + 100, f"card {e['position']} turned late"
    result = next(e for e in log if e["kind"] == "result")
    assert result["facedown"] == 0
    assert result["t"] >= max(e["t"] for e in turned)
    # The named card: a screen reader hears its rank and suit once it has turned.
    assert turned[-1]["label"] == "4♦"
    assert page.locator("#player-total").inner_text() == "9"
    assert page.locator("#banker-total").inner_text() == "6"


def test_real_rounds_turn_every_card_before_the_next_one_and_the_result(casino_url, page):
    """The casino deals on its own clock (a card every 1.2 s): every card has turned, and only then counted,
    before the next card or the result arrives; nobody touches the squeeze."""
    table = make_table(
        "Reveal live", make_variant("Live rules"), betting_seconds=2, deal_interval_ms=1200, result_seconds=2
    )
    page.goto(f"{casino_url}/tables/{table.id}/")
    page.wait_for_selector("#table[data-connected='1']")
    page.evaluate(RECORDER)
    # A round seen from its first card to its result.
    page.wait_for_function(
        """() => { const log = window.__rev; const first = log.findIndex((e) => e.kind === "card" && e.position === 1);
                   return first >= 0 && log.slice(first).some((e) => e.kind === "result"); }""",
        timeout=60_000,
    )
    log = events(page)
    first = next(i for i, e in enumerate(log) if e["kind"] == "card" and e["position"] == 1)
    end = next(i for i, e in enumerate(log) if i > first and e["kind"] == "result")
    rnd = log[first : end + 1]
    landed = [e for e in rnd if e["kind"] == "card"]
    turned = {e["position"]: e for e in rnd if e["kind"] == "revealed"}
    stored = Round.objects.filter(table=table).order_by("number")
    cards = next(r.cards for r in stored if [c["card"] for c in r.cards] == [e["card"] for e in landed])
    check_turn_then_total(rnd, cards_with_totals(cards))
    # on time: each card turned (in a task of its own) before the next one landed, the last before the result
    nexts = [e["t"] for e in landed[1:]] + [rnd[-1]["t"]]
    for card, next_t in zip(landed, nexts, strict=True):
        assert turned[card["position"]]["t"] + 20 < next_t, (
            f"card {card['position']} turned only when the next frame came"
        )
    assert landed[-1]["squeeze"]
    assert not any(e["squeeze"] for e in landed[:-1])
    assert rnd[-1]["facedown"] == 0


def test_the_last_card_can_be_squeezed_by_dragging_and_turns_when_peeled(casino_url, page, quiet_table):
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, NATURAL_ROUND, deal_interval_ms=8000)
    round_.open_and_close()
    for i in range(3):
        round_.deal(i)
        page.wait_for_selector(card_selector(i + 1) + "[data-revealed='1']", timeout=3000)
    round_.deal(3)
    card = page.locator(card_selector(4))
    assert "squeeze" in (card.get_attribute("class") or "")
    assert card.get_attribute("role") == "button"
    assert page.locator("#banker-total").inner_text() == "3"  # the fourth card (a 4 of spades) not counted yet
    box = card.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.85
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - box["height"] * 0.25, steps=4)
    peel = float(card.evaluate("el => getComputedStyle(el).getPropertyValue('--peel')") or 0)
    assert 0.1 < peel < 1, f"a short drag peels part of the card (--peel {peel})"
    assert card.get_attribute("data-revealed") is None
    assert page.locator(card_selector(4) + " .card-peel").count() == 1
    page.mouse.move(x, y - box["height"] * 1.2, steps=6)
    page.mouse.up()
    # peeled: it turns now, seconds before its own schedule (7.2 s)
    page.wait_for_selector(card_selector(4) + "[data-revealed='1']", timeout=5000)
    assert page.locator("#banker-total").inner_text() == "7"
    assert page.locator(card_selector(4) + " .card-peel").count() == 0
    assert card.get_attribute("role") == "img"
    assert card.get_attribute("aria-label") == "4♠"


def test_holding_the_last_card_peels_it_and_letting_go_early_drops_it_back(casino_url, page, quiet_table):
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, NATURAL_ROUND, deal_interval_ms=9000)
    round_.open_and_close()
    for i in range(4):
        round_.deal(i)
    card = page.locator(card_selector(4))
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(300)
    page.mouse.up()  # let go at about a quarter: it falls back, face-down
    page.wait_for_timeout(400)
    assert float(card.evaluate("el => getComputedStyle(el).getPropertyValue('--peel')") or 0) < 0.05
    assert card.get_attribute("data-revealed") is None
    page.mouse.down()  # held still: peels by itself and turns
    page.wait_for_selector(card_selector(4) + "[data-revealed='1']", timeout=2500)
    page.mouse.up()
    assert page.locator("#banker-total").inner_text() == "7"


def test_an_untouched_squeeze_turns_on_time_before_the_result(casino_url, page, quiet_table):
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, NATURAL_ROUND, deal_interval_ms=1500)
    round_.open_and_close()
    for i in range(3):
        round_.deal(i)
    round_.deal(3)  # earlier cards finish at once: the next card is here
    page.wait_for_selector(
        card_selector(4) + "[data-revealed='1']", timeout=5000
    )  # the page's own clock says when (below)
    log = events(page)
    land = next(e for e in log if e["kind"] == "card" and e["position"] == 4)
    turn = next(e for e in log if e["kind"] == "revealed" and e["position"] == 4)
    assert land["squeeze"]
    # It waited face-down for a squeeze, then turned slowly, done by 90 % of the interval.
    assert 700 <= turn["t"] - land["t"] <= 1350 + 100, turn["t"] - land["t"]
    round_.finish()
    page.wait_for_selector("#result:not([hidden])")
    assert next(e for e in events(page) if e["kind"] == "result")["facedown"] == 0


def test_a_result_that_comes_early_turns_the_cards_first(casino_url, page, quiet_table):
    """A result never waits for a squeeze: the last card turns at once, then the banner shows."""
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, NATURAL_ROUND, deal_interval_ms=9000)
    round_.open_and_close()
    for i in range(4):
        round_.deal(i)
    assert page.locator("#hands .card[data-revealed]").count() == 3
    round_.finish()
    log = events(page)
    result = next(e for e in log if e["kind"] == "result")
    assert result["facedown"] == 0
    assert page.locator("#banker-total").inner_text() == "7"


def test_reduced_motion_shows_each_card_and_total_at_once(casino_url, page, quiet_table):
    page.emulate_media(reduced_motion="reduce")
    open_page(page, casino_url, quiet_table)
    round_ = Feeder(page, quiet_table, ROUND_ID, THIRD_CARD_ROUND, deal_interval_ms=3000)
    round_.open_and_close()
    for i in range(len(round_.cards)):
        round_.deal(i)
    log = events(page)
    for entry in round_.cards:
        land = next(e for e in log if e["kind"] == "card" and e["position"] == entry["position"])
        assert land["revealed"], f"card {entry['position']} landed face-down"
        assert land["total"] == str(entry["totals"][entry["hand"]])
        assert not land["squeeze"]
    transition = page.locator(card_selector(1) + " .card-inner").evaluate(
        "el => getComputedStyle(el).transitionDuration"
    )
    assert transition in ("0s", "")


def tones(page) -> list[int]:
    return page.evaluate("window.__oscillators.map((o) => Math.round(o.osc.frequency.value))")


def test_sound_cues_for_the_turn_and_the_result_keep_to_the_mute_switch(casino_url, page, quiet_table):
    page.context.add_init_script(AUDIO_SPY)
    page.context.add_init_script("localStorage.setItem('casino.sound', 'on')")
    open_page(page, casino_url, quiet_table)
    assert page.locator("#sound").get_attribute("aria-pressed") == "true"
    round_ = Feeder(page, quiet_table, ROUND_ID, NATURAL_ROUND, deal_interval_ms=600)
    round_.open_and_close()
    round_.deal(0)
    page.wait_for_selector(card_selector(1) + "[data-revealed='1']")
    page.wait_for_timeout(100)
    assert 300 in tones(page), f"a card turning plays its cue: {tones(page)}"
    for i in range(1, 4):
        round_.deal(i)
    round_.finish()
    page.wait_for_timeout(100)
    assert 392 in tones(page), f"the result plays its cue: {tones(page)}"

    # Muted (the page's sound switch): a whole round plays nothing.
    page.click("#sound")
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    before = len(tones(page))
    second = Feeder(page, quiet_table, ROUND_ID + 1, THIRD_CARD_ROUND, deal_interval_ms=600)
    second.open_and_close()
    for i in range(len(second.cards)):
        second.deal(i)
        page.wait_for_timeout(600)
    second.finish()
    page.wait_for_timeout(300)
    assert len(tones(page)) == before, f"muted, yet tones played: {tones(page)[before:]}"
