"""The live table page (/tables/<id>/) in headless Chromium against a real casino: a player signs in, bets with
chips, confirms, watches the deal and is settled; Repeat/Double, refusals, closed side bets, the close policy for
pending chips, going offline, a watcher, and a phone-sized screen. The DOM hooks are in docs/table-client.md."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tables.models import Bet, Round
from tables.selectors.tables import round_outcomes
from tests.browser.helpers import PASSWORD, log_in, wait_for_betting, wait_until
from tests.factories import make_table, make_user, make_variant
from wallets.selectors import wallet_balance
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"  # screenshots (git-ignored)
START = Decimal("10000.00")

# Records, from inside the page, every change of the round state and the connection flag, every change of the
# number of cards on the felt and of the countdown, each with its time: short states (``closed`` lasts a tick)
# and the pace of the deal are seen as they happened rather than sampled.
RECORDER = """() => {
  const rec = { states: [], connected: [], cards: [], countdown: [] };
  const root = document.getElementById("table");
  const count = () => document.querySelectorAll("#player-cards .card, #banker-cards .card").length;
  const note = (list, v) => {
    if (!list.length || list[list.length - 1].v !== v) list.push({ t: performance.now(), v });
  };
  note(rec.states, root.dataset.roundState);
  note(rec.connected, root.dataset.connected);
  new MutationObserver(() => {
    note(rec.states, root.dataset.roundState);
    note(rec.connected, root.dataset.connected);
  }).observe(root, { attributes: true, attributeFilter: ["data-round-state", "data-connected"] });
  const cards = new MutationObserver(() => note(rec.cards, count()));
  for (const id of ["player-cards", "banker-cards"]) cards.observe(document.getElementById(id), { childList: true });
  const clock = document.getElementById("countdown");
  note(rec.countdown, clock.textContent);
  new MutationObserver(() => note(rec.countdown, clock.textContent))
    .observe(clock, { childList: true, characterData: true, subtree: true });
  window.__rec = rec;
}"""

# The page the moment the player's bets of the round are settled (read at once: the next round clears it).
SETTLED = """() => {
  const rows = [...document.querySelectorAll("#my-bets li")];
  const net = document.getElementById("result-net");
  if (!rows.length || rows.some((li) => li.dataset.status === "open") || !net.textContent) return null;
  const outcomes = {};
  document.querySelectorAll("button.spot").forEach((s) => (outcomes[s.dataset.type] = s.dataset.outcome || null));
  return {
    roundId: document.getElementById("table").dataset.roundId,
    winner: document.getElementById("result").dataset.winner || null,
    resultHidden: document.getElementById("result").hidden,
    cards: document.querySelectorAll("#player-cards .card, #banker-cards .card").length,
    balance: document.getElementById("balance").textContent,
    net: net.dataset.net,
    netText: net.textContent,
    rows: rows.map((li) => ({
      type: li.dataset.type, status: li.dataset.status, net: li.querySelector(".bet-net").textContent,
    })),
    outcomes,
    winningHands: ["player", "banker"].filter((h) => document.getElementById(h + "-hand").classList.contains("winner")),
  };
}"""


# The betting controls as they are at one instant (retrying assertions could wait for the window to close).
CONTROLS = """() => {
  const t = document.getElementById("table");
  const spots = {};
  document.querySelectorAll("button.spot").forEach((b) => (spots[b.dataset.type] = {
    disabled: b.disabled, unavailable: b.classList.contains("unavailable"),
    why: b.querySelector("[data-error-for]").textContent,
  }));
  const confirm = document.getElementById("confirm");
  const chips = [...document.querySelectorAll("#chips button.chip")];
  return {
    state: t.dataset.roundState, connected: t.dataset.connected, roundId: t.dataset.roundId, spots,
    confirmDisabled: confirm ? confirm.disabled : null, chipsDisabled: chips.map((c) => c.disabled),
    conn: !document.getElementById("conn").hidden,
  };
}"""


def money(text: str) -> Decimal:
    """Money as the page writes it ("10,047.50", "+50.00", "−5.00") as a Decimal."""
    return Decimal(text.strip().replace(",", "").replace("+", "").replace("\u2212", "-"))


@pytest.fixture
def player():
    user = make_user("carol", PASSWORD)
    wallet_deposit(user=user, amount=START, reason="test funds")
    return user


@pytest.fixture
def new_table():
    """Make a fast table (6 s windows, a card every 100 ms, 2 s of result) on its own variant. Its first round
    opens within a tick, so tests make it right before they open the page."""

    def make(name: str = "Fast table", *, betting_seconds: int = 6, **variant_fields: object):
        variant = make_variant(f"{name} rules", **variant_fields)
        return make_table(name, variant, betting_seconds=betting_seconds, deal_interval_ms=100, result_seconds=2)

    return make


def open_table(page, base: str, table) -> None:
    page.goto(f"{base}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)


def wait_for_result(page, round_id: int, timeout: float = 20_000) -> str:
    """Until the page shows the result of round ``round_id`` (never an earlier round's); returns its winner."""
    return page.wait_for_function(
        """(id) => {
          const result = document.getElementById("result");
          const now = document.getElementById("table").dataset.roundId === String(id);
          return now && !result.hidden && result.dataset.winner ? result.dataset.winner : null;
        }""",
        arg=round_id,
        timeout=timeout,
    ).json_value()


def no_result_shown(page) -> bool:
    """A new round's board: no winner highlighted, no result box (clearing the felt clears the last result)."""
    return page.evaluate(
        "() => { const r = document.getElementById('result'); return r.hidden && !r.hasAttribute('data-winner'); }"
    )


def spot(page, bet_type: str):
    return page.locator(f"button.spot[data-type={bet_type}]")


def pending(page, bet_type: str):
    return page.locator(f"[data-pending-for={bet_type}]")


def chip(page, value: int) -> None:
    page.click(f"#chips button.chip[data-value='{value}']")
    expect(page.locator(f"#chips button.chip[data-value='{value}']")).to_have_attribute("aria-checked", "true")


def test_a_player_bets_watches_the_cards_is_settled_and_finds_the_bet_in_the_record(
    casino_url, page, player, new_table
):
    log_in(page, casino_url, "carol")
    table = new_table("Main table")
    open_table(page, casino_url, table)
    expect(page.locator("#balance")).to_have_text("10,000.00")
    round_id = wait_for_betting(page, min_left=4)
    page.evaluate(RECORDER)
    expect(page.locator("#repeat")).to_be_disabled()  # nothing confirmed in an earlier round

    chip(page, 25)
    spot(page, "player").click()
    spot(page, "player").click()
    chip(page, 5)
    for _ in range(3):
        spot(page, "banker_pair").click()
    expect(pending(page, "player")).to_have_text("+50.00")
    expect(pending(page, "banker_pair")).to_have_text("+15.00")
    expect(page.locator("#stake-total")).to_have_text("65.00")
    page.click("#undo")  # takes back the last chip only
    expect(pending(page, "banker_pair")).to_have_text("+10.00")
    expect(pending(page, "player")).to_have_text("+50.00")
    expect(page.locator("#stake-total")).to_have_text("60.00")
    expect(page.locator("#balance")).to_have_text("10,000.00")  # pending chips cost nothing

    page.click("#confirm")
    expect(page.locator("#notice")).to_have_text("Bets confirmed")
    expect(page.locator("#balance")).to_have_text("9,940.00")
    expect(page.locator("[data-confirmed-for=player]")).to_have_text("50.00")
    expect(page.locator("[data-confirmed-for=banker_pair]")).to_have_text("10.00")
    expect(pending(page, "player")).to_have_text("")
    expect(page.locator("#my-bets li[data-status=open]")).to_have_count(2)
    assert page.get_attribute("#table", "data-round-id") == str(round_id)

    # The window closes, the cards fall one by one, the result shows and the wallet settles.
    winner_shown = wait_for_result(page, round_id)
    shown = page.wait_for_function(SETTLED, timeout=10_000).json_value()
    page.screenshot(path=str(ARTIFACTS / "table-1280.png"))
    rec = page.evaluate("window.__rec")
    data = page.request.get(f"{casino_url}/api/rounds/{round_id}/").json()

    states = [s["v"] for s in rec["states"]]
    assert states[:1] == ["betting"], states
    assert {"closed", "dealing", "result"} <= set(states), states
    assert states.index("closed") < states.index("dealing") < states.index("result"), states
    seconds = [int(c["v"]) for c in rec["countdown"] if c["v"]]
    assert seconds == sorted(seconds, reverse=True), seconds  # it only ever counts down
    assert {3, 2, 1} <= set(seconds), seconds
    assert rec["countdown"][-1]["v"] == "", "the countdown stops at the close"

    dealt = len(data["cards"])
    assert 4 <= dealt <= 6
    counts = [c["v"] for c in rec["cards"]]
    assert counts == list(range(1, dealt + 1)), f"cards should appear one at a time: {counts}"
    spread_ms = rec["cards"][-1]["t"] - rec["cards"][0]["t"]
    assert spread_ms >= 150, f"all {dealt} cards appeared within {spread_ms:.0f} ms"
    # Counted in the settled page's snapshot: on a busy machine the next round may have cleared the felt by now.
    assert shown["cards"] == dealt

    # The page's result agrees with the server's round, and the spots with the result.
    winner, flags = data["winner"], data["flags"]
    assert winner_shown == winner
    assert shown["roundId"] == str(round_id)
    assert not shown["resultHidden"]
    assert shown["winner"] == winner
    assert shown["outcomes"]["player"] == {"player": "won", "tie": "push", "banker": "lost"}[winner]
    assert shown["outcomes"]["banker"] == {"banker": "won", "tie": "push", "player": "lost"}[winner]
    assert shown["outcomes"]["tie"] == ("won" if winner == "tie" else "lost")
    assert shown["outcomes"]["banker_pair"] == ("won" if flags["banker_pair"] else "lost")
    assert "won" in shown["outcomes"].values()
    # The spots are marked from the server's `outcomes` (the engine's rules, the round's paytable), in the mode the
    # player is in (Traditional here): the page holds no rules of its own.
    marks = round_outcomes(Round.objects.select_related("table__variant").get(pk=round_id))
    assert shown["outcomes"] == {t: marks[t]["traditional"] for t in shown["outcomes"]}
    assert shown["winningHands"] == {"player": ["player"], "banker": ["banker"], "tie": ["player", "banker"]}[winner]

    # The server paid by the rules (1:1, push on a tie; pair 11:1) and the page shows what it paid.
    bets = {bet["type"]: bet for bet in data["bets"]}
    assert {t: money(b["amount"]) for t, b in bets.items()} == {"player": Decimal(50), "banker_pair": Decimal(10)}
    expected = {
        "player": {"player": Decimal(100), "tie": Decimal(50), "banker": Decimal(0)}[winner],
        "banker_pair": Decimal(120) if flags["banker_pair"] else Decimal(0),
    }
    assert {t: money(b["payout"]) for t, b in bets.items()} == expected
    paid = sum(expected.values())
    net = paid - Decimal(60)
    assert money(shown["balance"]) == START - Decimal(60) + paid
    assert Decimal(shown["net"]) == net
    if net > 0:
        assert shown["netText"] == f"You win {net:,.2f}"
    elif net < 0:
        assert shown["netText"] == f"You lose {-net:,.2f}"
    else:
        assert shown["netText"] == "Stake returned"
    rows = {row["type"]: row for row in shown["rows"]}
    assert {t: r["status"] for t, r in rows.items()} == {t: b["status"] for t, b in bets.items()}
    for bet_type, bet in bets.items():
        assert money(rows[bet_type]["net"] or "0") == money(bet["payout"]) - money(bet["amount"])

    page.click("a[href='/bets/']")
    played = page.locator(f"#record article.rec-round[data-round-id='{round_id}']")
    expect(played.locator("tr.rec-bet")).to_have_count(2)
    assert "Main table" in played.locator(".rec-table").inner_text()
    for bet_type, bet in bets.items():
        row = played.locator(f"tr.rec-bet[data-type={bet_type}]")
        expect(row).to_have_attribute("data-status", bet["status"])
        assert f"{money(bet['amount']):,.2f}" in row.inner_text()


def test_repeat_places_last_rounds_bets_again_and_double_places_them_twice_over(casino_url, page, player, new_table):
    log_in(page, casino_url, "carol")
    table = new_table("Repeat table")
    open_table(page, casino_url, table)
    first = wait_for_betting(page)
    expect(page.locator("#repeat")).to_be_disabled()
    chip(page, 10)
    spot(page, "player").click()
    chip(page, 5)
    spot(page, "tie").click()
    page.click("#confirm")
    expect(page.locator("#my-bets li[data-status=open]")).to_have_count(2)

    # The next round: Repeat puts down what was confirmed last round, Double twice that.
    page.wait_for_function(
        "(first) => { const t = document.getElementById('table');"
        " return t.dataset.roundState === 'betting' && Number(t.dataset.roundId) > first; }",
        arg=first,
        timeout=20_000,
    )
    assert no_result_shown(page), "the last round's winner is still on the board of the new one"
    expect(page.locator("#repeat")).to_be_enabled()
    expect(pending(page, "player")).to_have_text("")
    page.click("#repeat")
    expect(pending(page, "player")).to_have_text("+10.00")
    expect(pending(page, "tie")).to_have_text("+5.00")
    expect(page.locator("#stake-total")).to_have_text("15.00")
    page.click("#clear")
    expect(pending(page, "player")).to_have_text("")
    page.click("#double")
    expect(pending(page, "player")).to_have_text("+20.00")
    expect(pending(page, "tie")).to_have_text("+10.00")
    expect(page.locator("#stake-total")).to_have_text("30.00")
    page.click("#double")  # with chips down, Double doubles what is on the table
    expect(pending(page, "player")).to_have_text("+40.00")
    expect(pending(page, "tie")).to_have_text("+20.00")
    for bet_type in ("banker", "banker_pair", "any_pair"):
        expect(pending(page, bet_type)).to_have_text("")

    before = wallet_balance(user=player)["balance"]  # after round 1's settlement
    expect(page.locator("#balance")).to_have_text(f"{before:,.2f}")
    page.click("#confirm")
    expect(page.locator("#balance")).to_have_text(f"{before - 60:,.2f}")
    assert wallet_balance(user=player)["balance"] == before - 60
    second = int(page.get_attribute("#table", "data-round-id"))
    placed = dict(Bet.objects.filter(user=player, round_id=second).values_list("type", "amount"))
    assert placed == {"player": Decimal("40.00"), "tie": Decimal("20.00")}


def test_a_bet_over_the_maximum_shows_the_servers_reason_next_to_the_spot_and_changes_nothing(
    casino_url, page, player, new_table, console_errors
):
    console_errors.allow(r"status of 400 .*/api/rounds/\d+/bets/")  # the refused POST, on purpose
    log_in(page, casino_url, "carol")
    table = new_table("Limits table")
    open_table(page, casino_url, table)
    wait_for_betting(page)

    # A chip past the maximum the page knows (side bets 500.00) is refused at once, next to its spot.
    chip(page, 500)
    spot(page, "player_pair").click()
    expect(pending(page, "player_pair")).to_have_text("+500.00")
    spot(page, "player_pair").click()
    expect(page.locator("[data-error-for=player_pair]")).to_have_text("The maximum on Player Pair is 500.00.")
    expect(pending(page, "player_pair")).to_have_text("+500.00")
    page.click("#clear")
    expect(page.locator("[data-error-for=player_pair]")).to_have_text("")

    # The round's own Tie maximum drops under the page (as if the page had missed it): the page cannot
    # know, the server refuses with its reason. (Tie, not Player: with a Player/Banker difference limit the
    # server binds those two by the difference.)
    round_ = Round.objects.get(pk=int(page.locator("#table").get_attribute("data-round-id")))
    round_.terms["limits"]["per_type"]["tie"]["max"] = "10.00"
    Round.objects.filter(pk=round_.pk).update(terms=round_.terms)
    chip(page, 25)
    spot(page, "tie").click()
    expect(pending(page, "tie")).to_have_text("+25.00")
    page.click("#confirm")
    reason = page.locator("[data-error-for=tie]")
    expect(reason).not_to_have_text("")
    # The server's refusal names the bet (its body's bet_type) and the round's own limit.
    expect(reason).to_have_text("The maximum on Tie is 10.00.")
    expect(page.locator("#notice")).to_have_text("The maximum on Tie is 10.00.")
    expect(page.locator("#balance")).to_have_text("10,000.00")
    expect(page.locator("#my-bets li")).to_have_count(0)
    expect(pending(page, "tie")).to_have_text("+25.00")  # still there, to change or drop
    expect(page.locator("[data-confirmed-for=tie]")).to_have_text("")
    assert not Bet.objects.filter(user=player).exists()


def test_an_operators_new_limits_reach_the_page_with_the_next_round(casino_url, page, player, new_table):
    log_in(page, casino_url, "carol")
    table = new_table("Edited limits table")
    open_table(page, casino_url, table)
    first = wait_for_betting(page, min_left=1)
    expect(page.locator("#spot-tie .limits")).to_have_text("1.00 – 5,000.00")
    # The operator lowers Tie's maximum: the round already open keeps its own terms.
    table.variant.bets.filter(bet_type="tie").update(max_stake="10.00")
    page.wait_for_function(f"Number(document.getElementById('table').dataset.roundId) > {first}", timeout=30_000)
    wait_for_betting(page, min_left=2)
    expect(page.locator("#spot-tie .limits")).to_have_text("1.00 – 10.00")
    chip(page, 25)
    spot(page, "tie").click()
    expect(page.locator("[data-error-for=tie]")).to_contain_text("10.00")
    expect(pending(page, "tie")).to_have_text("")


def test_a_closed_side_bet_is_disabled_and_says_why(casino_url, page, player, new_table):
    log_in(page, casino_url, "carol")
    table = new_table("Closed bets table", unavailable_after={"any_pair": 1, "perfect_pair": 50})
    open_table(page, casino_url, table)
    first = wait_for_betting(page, min_left=1)
    # Any Pair is offered in round 1 of the shoe only: from round 2 it is closed.
    page.wait_for_function(f"Number(document.getElementById('table').dataset.roundId) > {first}", timeout=30_000)
    wait_for_betting(page)
    now = page.evaluate(CONTROLS)
    assert now["state"] == "betting"
    closed = now["spots"]["any_pair"]
    assert closed["disabled"], closed
    assert closed["unavailable"], closed
    assert closed["why"].strip(), "a closed spot says why"
    # Only that one: the others of the round are open.
    for bet_type in ("player", "perfect_pair", "player_pair"):
        assert now["spots"][bet_type] == {"disabled": False, "unavailable": False, "why": ""}, bet_type
    spot(page, "any_pair").click(force=True)  # a click on it puts nothing down
    expect(page.locator("#stake-total")).to_have_text("0.00")
    expect(pending(page, "any_pair")).to_have_text("")


def test_pending_chips_at_the_close_are_not_placed_and_come_back_in_the_next_round(casino_url, page, player, new_table):
    log_in(page, casino_url, "carol")
    table = new_table("Close policy table")
    open_table(page, casino_url, table)
    first = wait_for_betting(page)
    chip(page, 10)
    spot(page, "player").click()
    spot(page, "banker").click()
    spot(page, "banker").click()
    expect(pending(page, "banker")).to_have_text("+20.00")
    expect(page.locator("#unplaced")).to_be_hidden()

    page.wait_for_function("document.getElementById('table').dataset.roundState !== 'betting'", timeout=15_000)
    unplaced = page.locator("#unplaced")
    expect(unplaced).to_be_visible()
    expect(unplaced).to_contain_text("30.00")
    expect(pending(page, "player")).to_have_text("")
    expect(page.locator("#balance")).to_have_text("10,000.00")
    expect(page.locator("#my-bets li")).to_have_count(0)
    assert not Bet.objects.filter(user=player).exists()

    page.wait_for_function(
        "(first) => { const t = document.getElementById('table');"
        " return t.dataset.roundState === 'betting' && Number(t.dataset.roundId) > first; }",
        arg=first,
        timeout=20_000,
    )
    expect(pending(page, "player")).to_have_text("+10.00")
    expect(pending(page, "banker")).to_have_text("+20.00")
    expect(page.locator("#stake-total")).to_have_text("30.00")
    expect(unplaced).to_be_visible()
    expect(page.locator("#confirm")).to_be_enabled()
    expect(page.locator("#balance")).to_have_text("10,000.00")
    assert not Bet.objects.filter(user=player).exists()


def test_going_offline_shows_reconnecting_disables_betting_and_back_online_shows_the_newer_round(
    casino_url, page, player, new_table, console_errors
):
    # While the network is off, Chromium logs each failed reconnection attempt of the socket.
    console_errors.allow(r"WebSocket connection to .*/ws/tables/\d+/' failed: .*ERR_INTERNET_DISCONNECTED")
    log_in(page, casino_url, "carol")
    table = new_table("Offline table", betting_seconds=4)
    open_table(page, casino_url, table)
    away = wait_for_betting(page, min_left=3)
    expect(page.locator("#conn")).to_be_hidden()
    chip(page, 5)
    spot(page, "player").click()
    expect(page.locator("#confirm")).to_be_enabled()
    page.evaluate(RECORDER)

    page.context.set_offline(True)
    page.wait_for_function("!document.getElementById('conn').hidden", timeout=5_000)
    now = page.evaluate(CONTROLS)
    assert now["state"] == "betting", "the page still believes the window is open"
    assert now["connected"] == "0"
    assert now["confirmDisabled"] is True
    assert all(now["chipsDisabled"])
    assert all(s["disabled"] for s in now["spots"].values()), now["spots"]
    expect(page.locator("#conn")).to_contain_text("Reconnecting")
    conn = page.locator("#conn")

    # The round the page showed ends (and the next opens) while it cannot hear.
    wait_until(
        lambda: (
            Round.objects.filter(table=table, id__gt=away).exists()
            and Round.objects.filter(pk=away, state=Round.State.SETTLED).exists()
        ),
        timeout=20,
        message=f"round {away} to end and the next to open",
    )
    assert page.get_attribute("#table", "data-round-id") == str(away)
    expect(conn).to_be_visible()
    connected = [c["v"] for c in page.evaluate("window.__rec")["connected"]]
    assert connected[-1] == "0", connected
    assert "1" not in connected[1:], f"reconnected while offline: {connected}"

    page.context.set_offline(False)
    back = page.wait_for_function(
        """() => {
          const t = document.getElementById("table");
          if (t.dataset.connected !== "1") return null;
          const unplaced = document.getElementById("unplaced");
          return {
            state: t.dataset.roundState, roundId: Number(t.dataset.roundId),
            conn: !document.getElementById("conn").hidden,
            unplaced: !unplaced.hidden, unplacedText: unplaced.textContent,
            pending: document.querySelector("[data-pending-for=player]").textContent,
          };
        }""",
        timeout=10_000,
    ).json_value()
    assert back["roundId"] > away, back
    assert not back["conn"]
    notice = page.locator(f"#notice[data-away='{away}']")
    expect(notice).to_be_visible()
    number = Round.objects.get(pk=away).number
    expect(notice).to_contain_text(f"round {number} ended")
    # The chip left pending when the network went missed the close: never placed, and the close policy holds
    # (a banner; the chip pending again if the newer round is taking bets, off the felt if not).
    assert back["unplaced"], back
    if back["state"] == "betting":
        assert back["pending"] == "+5.00", back
    else:
        assert back["pending"] == "", back
        assert "5.00" in back["unplacedText"], back
    assert not Bet.objects.filter(user=player).exists()
    expect(page.locator("#balance")).to_have_text("10,000.00")


def test_a_watcher_who_is_not_signed_in_sees_the_cards_but_cannot_bet(casino_url, page, new_table):
    table = new_table("Watched table", betting_seconds=2)
    open_table(page, casino_url, table)
    round_id = int(
        page.wait_for_function(
            "() => { const t = document.getElementById('table');"
            " return t.dataset.roundState === 'betting' ? t.dataset.roundId : null; }",
            timeout=15_000,
        ).json_value()
    )
    now = page.evaluate(CONTROLS)
    assert now["state"] == "betting"
    assert len(now["spots"]) == 14
    assert all(s["disabled"] for s in now["spots"].values()), now["spots"]
    assert now["confirmDisabled"] is None
    assert now["chipsDisabled"] == []
    expect(page.locator("#chips")).to_have_count(0)
    expect(page.locator("#confirm")).to_have_count(0)
    expect(page.locator("#balance")).to_have_count(0)
    spots = page.locator("button.spot")
    login = page.locator("a", has_text="Log in to bet")
    expect(login).to_be_visible()
    assert login.get_attribute("href") == f"/accounts/login/?next=/tables/{table.id}/"

    page.wait_for_selector("#player-cards .card", timeout=15_000)
    page.wait_for_selector("#banker-cards .card", timeout=5_000)
    assert wait_for_result(page, round_id, timeout=10_000) in {"player", "banker", "tie"}
    for index in range(spots.count()):
        expect(spots.nth(index)).to_be_disabled()


def test_on_a_phone_the_table_fits_the_screen_and_keeps_the_betting_controls_in_view(
    casino_url, page, player, new_table
):
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, casino_url, "carol")
    table = new_table("Phone table")
    open_table(page, casino_url, table)
    wait_for_betting(page, min_left=2)
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: scrollWidth {widths[0]} > innerWidth {widths[1]}"
    for selector in ("#confirm", "#chips", "#countdown"):
        expect(page.locator(selector)).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "table-390.png"))


def test_a_confirm_and_a_settlement_reach_the_players_other_pages_without_a_reload(
    casino_url, page, player, new_table, console_errors
):
    """Carol has the table open on two devices (here: two tabs of one session) and a second table in a third.
    Her bets on one page show on the other at the same table, and every page's balance follows the wallet: after
    the confirm, and after the settlement at the first table (which the second table's page hears about only as a
    ``wallet.changed``)."""
    log_in(page, casino_url, "carol")
    table = new_table("Two devices", betting_seconds=10)
    other_table = new_table("Third tab", betting_seconds=120)  # its window stays open all the test
    other_device, third_tab = page.context.new_page(), page.context.new_page()
    for extra in (other_device, third_tab):
        extra.set_default_timeout(20_000)
        console_errors.watch(extra)
    open_table(page, casino_url, table)
    open_table(other_device, casino_url, table)
    open_table(third_tab, casino_url, other_table)
    for each in (page, other_device, third_tab):
        expect(each.locator("#balance")).to_have_text("10,000.00")

    wait_for_betting(page, min_left=6)
    wait_for_betting(other_device, min_left=4)
    # Both sides: whoever wins (or a tie's push), the settlement pays something back, so it moves the balance.
    chip(page, 25)
    spot(page, "player").click()
    spot(page, "banker").click()
    page.click("#confirm")
    expect(page.locator("#notice")).to_have_text("Bets confirmed")
    round_id = int(page.get_attribute("#table", "data-round-id"))  # a slow click may have waited for the next
    assert Bet.objects.filter(round_id=round_id, user=player).count() == 2
    for each in (page, other_device, third_tab):
        expect(each.locator("#balance")).to_have_text("9,950.00")
    # The other device shows the bets as its own: on the board and in its list.
    expect(other_device.locator("[data-confirmed-for=player]")).to_have_text("25.00")
    expect(other_device.locator("[data-confirmed-for=banker]")).to_have_text("25.00")
    expect(other_device.locator("#my-bets li[data-status=open]")).to_have_count(2)

    wait_until(lambda: Round.objects.filter(pk=round_id, state="settled").exists(), message="the settlement")
    settled = Decimal(wallet_balance(user=player)["balance"])
    assert settled > START - Decimal("50.00")
    for each in (page, other_device, third_tab):
        expect(each.locator("#balance")).to_have_text(f"{settled:,.2f}")
