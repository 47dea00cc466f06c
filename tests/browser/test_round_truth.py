"""What the round says is always true, in headless Chromium against a real casino: the spots' payout labels are the
round's own terms after an operator changes the variant; a pause or a cancel clears the last result, says what
happened to the player's bets and why, and keeps saying it; scores are written winner first; and a Confirm whose
answer is lost, then retried, places the bets once."""

from __future__ import annotations

import re
import time
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tables import engine
from tables.models import Bet, BetPlacement, Round, Shoe, Table
from tables.services import controls
from tests.browser.helpers import PASSWORD, in_own_thread, log_in, wait_for_betting, wait_until
from tests.factories import make_table, make_user, make_variant
from wallets.selectors import wallet_balance
from wallets.services import wallet_deposit

pytestmark = pytest.mark.django_db(transaction=True)
START = Decimal("1000.00")
REASON = "Dealer Anna feels unwell (internal)"


@pytest.fixture
def player():
    user = make_user("dora", PASSWORD)
    wallet_deposit(user=user, amount=START, reason="test funds")
    return user


def table_of(name: str, *, betting_seconds: int = 6):
    return make_table(
        name, make_variant(f"{name} rules"), betting_seconds=betting_seconds, deal_interval_ms=100, result_seconds=2
    )


def open_table(page, base: str, table) -> None:
    page.goto(f"{base}/tables/{table.id}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=15_000)


def bet_ten_on_player(page) -> None:
    page.click("#chips button.chip[data-value='10']")
    page.click("button.spot[data-type=player]")
    expect(page.locator("[data-pending-for=player]")).to_have_text("+10.00")


def winner_first(round_: Round) -> str:
    high, low = sorted([round_.player_total, round_.banker_total], reverse=True)
    name = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[round_.winner]
    return f"{name} {high} – {low}"


def test_the_spots_show_each_rounds_own_payouts_after_an_operator_changes_the_variant(casino_url, page, player):
    log_in(page, casino_url, "dora")
    table = table_of("Odds table")
    open_table(page, casino_url, table)
    first = wait_for_betting(page, min_left=1)
    expect(page.locator("[data-pays-for=banker]")).to_have_text("0.95:1")
    expect(page.locator("[data-pays-for=tie]")).to_have_text("8:1")
    expect(page.locator("#spot-perfect_pair .limits")).to_have_text(re.compile(r"\d"))

    # The operator changes the odds and stops offering Perfect Pair while the page is open.
    variant = table.variant
    variant.pays_banker = Decimal("0.90")
    variant.pays_tie = Decimal(9)
    variant.save()
    variant.bets.filter(bet_type="perfect_pair").delete()
    assert Round.objects.get(pk=first).terms["paytable"]["banker"] == "0.95"
    # The round already open keeps its labels (it pays its own terms)…
    expect(page.locator("[data-pays-for=banker]")).to_have_text("0.95:1")

    # …and the next round shows the new ones, in both modes, and the spot it no longer offers.
    wait_for_betting(page, min_left=1, after=first)
    expect(page.locator("[data-pays-for=banker]")).to_have_text("0.9:1")
    expect(page.locator("[data-pays-for=tie]")).to_have_text("9:1")
    expect(page.locator("#spot-perfect_pair .limits")).to_have_text("Not offered")
    page.check("input[name=mode][value=no_commission]")
    expect(page.locator("[data-pays-for=banker]")).to_contain_text("6 →")
    page.check("input[name=mode][value=traditional]")
    expect(page.locator("[data-pays-for=banker]")).to_have_text("0.9:1")


def test_a_pause_clears_the_last_result_says_the_bets_were_refunded_and_why_and_keeps_saying_it(
    casino_url, page, player, casino_layer
):
    log_in(page, casino_url, "dora")
    table = table_of("Paused table")
    open_table(page, casino_url, table)
    first = wait_for_betting(page, min_left=0)
    # The first round's result is on the stage…
    page.wait_for_function(
        "(id) => document.getElementById('table').dataset.roundId === String(id)"
        " && document.getElementById('result-text').textContent !== ''",
        arg=first,
        timeout=30_000,
    )
    # …then the next round opens; the player bets 10.00 and the operator pauses the table before the deal.
    second = wait_for_betting(page, min_left=3, after=first)
    bet_ten_on_player(page)
    page.click("#confirm")
    expect(page.locator("#notice")).to_have_text("Bets confirmed")
    number = Round.objects.get(pk=second).number
    in_own_thread(controls.table_pause, table_id=table.pk, reason=REASON)

    notice = page.locator("#notice")
    expect(notice).to_contain_text("The table was paused by the operator.")
    expect(notice).to_contain_text(
        f"Round {number} was cancelled because the table was paused before the cards were dealt."
    )
    expect(notice).to_contain_text("Your bets on it were refunded: 10.00.")
    expect(notice).not_to_contain_text("stay valid")
    expect(page.locator("#result-text")).to_have_text("")
    expect(page.locator("#result-net")).to_have_text("Refunded 10.00")
    expect(page.locator("#phase")).to_have_text("Table paused")
    time.sleep(3)  # it stays: nothing else happens while the table is paused
    expect(notice).to_contain_text("Your bets on it were refunded: 10.00.")
    assert REASON not in page.content()
    assert wallet_balance(user=player)["balance"] == START

    # A player who joins now reads the same.
    late = page.context.new_page()
    open_table(late, casino_url, table)
    expect(late.locator("#notice")).to_contain_text(f"Round {number} was cancelled because the table was paused")
    expect(late.locator("#notice")).to_contain_text("Your bets on it were refunded: 10.00.")
    expect(late.locator("#result-text")).to_have_text("")
    late.close()

    in_own_thread(controls.table_resume, table_id=table.pk)
    expect(notice).to_have_text("The table has resumed.")


def test_a_cancel_says_so_with_the_refund_into_the_next_round(casino_url, page, player, casino_layer):
    log_in(page, casino_url, "dora")
    table = table_of("Cancelled table", betting_seconds=8)
    open_table(page, casino_url, table)
    current = wait_for_betting(page, min_left=4)
    bet_ten_on_player(page)
    page.click("#confirm")
    expect(page.locator("#notice")).to_have_text("Bets confirmed")
    number = Round.objects.get(pk=current).number
    in_own_thread(controls.round_cancel, round_id=current, reason=REASON)

    # The table goes straight on with its next round; the notice stays with it (not ~0.5 s).
    wait_for_betting(page, min_left=0, after=current)
    notice = page.locator("#notice")
    expect(notice).to_contain_text(f"Round {number} was cancelled by the operator.")
    expect(notice).to_contain_text("Your bets on it were refunded: 10.00.")
    time.sleep(2)
    expect(notice).to_contain_text(f"Round {number} was cancelled by the operator.")
    assert REASON not in page.content()
    assert wallet_balance(user=player)["balance"] == START


def banker_wins_twice(table) -> None:
    """Give ``table`` (paused, no shoe yet) a shoe whose first two rounds Banker wins, then open it: a score
    written Player first ("Banker wins 4 – 6") then reads as if Banker lost."""
    variant = table.variant
    while True:
        seed = engine.new_server_seed()
        state = engine.new_shoe(variant.decks, seed_hex=seed, cut_range=(variant.cut_min, variant.cut_max))
        probe = engine.ShoeState.from_dict(state.to_dict())
        if [probe.deal_round().winner for _ in range(2)] == ["banker", "banker"]:
            break
    Shoe.objects.create(
        table=table,
        number=1,
        state=state.to_dict(),
        server_seed=seed,
        commitment=engine.commitment(seed),
        burn_card=str(state.burn_card),
        burn_count=state.burn_count,
    )
    Table.objects.filter(pk=table.pk).update(status=Table.Status.OPEN, next_action_at=None)


def test_scores_are_written_winner_first_on_the_stage_and_in_the_away_notice(casino_url, page, player, console_errors):
    console_errors.allow(r"ERR_INTERNET_DISCONNECTED")  # the socket's reconnection attempts while offline
    log_in(page, casino_url, "dora")
    table = make_table(
        "Away table",
        make_variant("Away rules"),
        status=Table.Status.PAUSED,
        betting_seconds=3,
        deal_interval_ms=100,
        result_seconds=2,
    )
    banker_wins_twice(table)
    open_table(page, casino_url, table)
    first = wait_for_betting(page, min_left=0)
    page.wait_for_function(
        "(id) => document.getElementById('table').dataset.roundId === String(id)"
        " && document.getElementById('result-text').textContent !== ''",
        arg=first,
        timeout=30_000,
    )
    shown = Round.objects.get(pk=first)
    expect(page.locator("#result-text")).to_have_text(winner_first(shown))

    # Away for a whole round: its score in the notice is winner first too.
    away = wait_for_betting(page, min_left=0, after=first)
    page.context.set_offline(True)
    expect(page.locator("#table")).to_have_attribute("data-connected", "0", timeout=15_000)
    wait_until(
        lambda: Round.objects.filter(table=table, pk__gt=away, state="betting").exists(),
        timeout=40,
        interval=0.2,
        message="the next round to open",
    )
    page.context.set_offline(False)
    ended = Round.objects.get(pk=away)
    expect(page.locator("#notice")).to_contain_text(
        f"While you were away, round {ended.number} ended: {winner_first(ended)}.", timeout=20_000
    )


def test_a_confirm_whose_answer_is_lost_and_is_retried_places_the_bets_once(casino_url, page, player, console_errors):
    console_errors.allow(r"Failed to load resource|ERR_FAILED")
    log_in(page, casino_url, "dora")
    table = table_of("Retry table", betting_seconds=15)
    open_table(page, casino_url, table)
    round_id = wait_for_betting(page, min_left=8)

    keys: list[str] = []

    def lose_the_first_answer(route) -> None:
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.fetch()  # the request reaches the server and the bets are placed…
            route.abort()  # …but the answer never comes back
        else:
            route.continue_()

    page.route("**/api/rounds/*/bets/", lose_the_first_answer)
    bet_ten_on_player(page)
    page.click("#confirm")
    expect(page.locator("#notice")).to_contain_text("No answer from the server")
    assert Bet.objects.filter(round_id=round_id, user=player).count() == 1  # placed, though the page cannot know
    # The chips of a batch in doubt stay as they are: only Confirm (the retry) is offered.
    expect(page.locator("#chips button.chip").first).to_be_disabled()
    expect(page.locator("#confirm")).to_be_enabled()

    page.click("#confirm")  # the player retries
    expect(page.locator("#notice")).to_have_text("Bets confirmed")
    expect(page.locator("[data-confirmed-for=player]")).to_have_text("10.00")
    expect(page.locator("#my-bets li")).to_have_count(1)
    assert len(keys) == 2
    assert keys[0]
    assert keys[0] == keys[1]
    assert Bet.objects.filter(round_id=round_id, user=player).count() == 1
    assert BetPlacement.objects.filter(round_id=round_id, user=player).count() == 1
    assert wallet_balance(user=player)["balance"] == START - Decimal("10.00")
    expect(page.locator("#balance")).to_have_text("990.00")

    # A new batch after the answer gets a key of its own and is placed as well.
    bet_ten_on_player(page)
    page.click("#confirm")
    expect(page.locator("[data-confirmed-for=player]")).to_have_text("20.00")
    assert len(keys) == 3
    assert keys[2] != keys[0]
    assert wallet_balance(user=player)["balance"] == START - Decimal("20.00")


def test_the_spots_are_marked_as_the_servers_outcomes_say_in_the_players_mode(casino_url, page, player):
    """The page marks each spot won, pushed or lost from the ``outcomes`` of ``round.result`` (docs/api.md), in the
    betting mode the player is in, and never from rules of its own: a result frame whose outcomes no rule would
    give (a Tie won while Banker wins, a Banker bet that pushes without commission) is shown as it says."""
    log_in(page, casino_url, "dora")
    table = table_of("Outcomes table", betting_seconds=60)
    open_table(page, casino_url, table)
    round_id = wait_for_betting(page, min_left=20)
    frame = {
        "type": "round.result",
        "table_id": table.pk,
        "round_id": round_id,
        "cards": [],
        "player_total": 4,
        "banker_total": 6,
        "winner": "banker",
        # Player 4 on three cards, Banker 6 on two (the frame's facts; its outcomes are what the test says).
        "flags": engine.RoundResult.from_cards(engine.parse_cards("KS 5D 9H"), engine.parse_cards("4H 2C")).flags(),
        "outcomes": {
            "banker": {"traditional": "won", "no_commission": "push"},
            "tie": {"traditional": "won", "no_commission": "won"},
            "player": {"traditional": "lost", "no_commission": "lost"},
        },
        "roads": engine.roads([]),
    }
    page.evaluate("(frame) => window.casinoTable.handle(frame)", frame)
    spot = lambda bet_type: page.locator(f"button.spot[data-type={bet_type}]")  # noqa: E731
    expect(page.locator("#result")).to_have_attribute("data-winner", "banker")
    expect(spot("banker")).to_have_attribute("data-outcome", "won")
    expect(spot("tie")).to_have_attribute("data-outcome", "won")
    expect(spot("player")).to_have_attribute("data-outcome", "lost")
    # A spot the frame says nothing of is left unmarked (the page does not fill it in).
    assert spot("banker_pair").get_attribute("data-outcome") is None
    page.check("input[name=mode][value=no_commission]")
    expect(spot("banker")).to_have_attribute("data-outcome", "push")
    expect(spot("tie")).to_have_attribute("data-outcome", "won")
    page.check("input[name=mode][value=traditional]")
    expect(spot("banker")).to_have_attribute("data-outcome", "won")
