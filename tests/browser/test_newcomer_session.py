"""A newcomer's session at the table, end to end (issue 22, "Done when"): on a phone, a small laptop and a desktop,
a new player plays round after round through all six languages, with a pause, a cancel and a dropped connection,
and meets no overlap, no hidden message, no stale or misleading number and no double bet.

Each round the page is checked where a player would look: the spots' payout labels equal the round's own terms
(the operator changes the Tie's odds half way through); the chosen chip is on a spot and confirmed once; once the
cards have turned no card overlaps another card, the countdown or the other hand, nor sticks out of its own; the
result is written winner first and matches the round in the database; every banner shown ("Bets confirmed", the
pause and cancel notices, "Reconnecting…") is on screen and clear of the fixed chip bar (the cards and banners
checked by tests/browser/test_table_layout.py's own checks). At the end every confirm is one bet in the database
and the wallet equals the start less the stakes plus what the rounds paid back.

``NEWCOMER_ROUNDS`` (default 7: every language once, then the first again) sets the rounds per screen; the
issue's full session is ``NEWCOMER_ROUNDS=20``."""

from __future__ import annotations

import os
import time
from decimal import Decimal

import pytest

from tables.engine import Paytable, payout_labels
from tables.models import Bet, Round
from tables.selectors.bets import casino_reconciliation
from tables.services import controls
from tests.browser.helpers import PASSWORD, in_own_thread, log_in, wait_for_betting
from tests.browser.test_table_layout import BANNERS, CARDS, check_banners, check_cards
from tests.factories import make_table, make_user, make_variant
from wallets.selectors import wallet_balance
from wallets.services import wallet_deposit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LANGUAGES = ("en", "fa", "hi", "vi", "ru", "pt")
SCREENS = [(390, 844), (1366, 768), (1920, 1080)]
ROUNDS = int(os.environ.get("NEWCOMER_ROUNDS", "7"))
START = Decimal("1000.00")
# Which round of the session meets which event (0-based); the Tie pays 9:1 from CHANGE_AT on.
PAUSE_AT, CANCEL_AT, OFFLINE_AT = 1, 3, 5
CHANGE_AT = ROUNDS // 2
WINNER_WORDS = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}

STATE = r"""() => {
  const t = document.getElementById("table");
  return {state: t.dataset.roundState, connected: t.dataset.connected, roundId: Number(t.dataset.roundId || 0),
          left: parseInt(document.getElementById("countdown").textContent, 10) || 0};
}"""


def label_problems(page, round_id: int, what: str) -> list[str]:
    """The spots' labels against the round's own terms (traditional mode, as the newcomer plays)."""
    terms = Round.objects.get(pk=round_id).terms
    labels = payout_labels(Paytable.from_dict(terms["paytable"]))
    shown = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('[data-pays-for]')]"
        ".map((el) => [el.dataset.paysFor, el.textContent.trim()]))"
    )
    return [
        f"{what}: {bet_type} shows {shown.get(bet_type)!r}, the round pays {labels[bet_type]['traditional']!r}"
        for bet_type in ("player", "banker", "tie")
        if shown.get(bet_type) != labels[bet_type]["traditional"]
    ]


def open_in(page, context, base: str, table_id: int, lang: str) -> None:
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(f"{base}/tables/{table_id}/")
    page.wait_for_selector("#table[data-connected='1']", timeout=30_000)


@pytest.mark.parametrize("screen", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_a_newcomer_plays_a_session_with_a_pause_a_cancel_and_a_dropped_connection(
    casino_url, browser, casino_layer, screen
):
    width, height = screen
    variant = make_variant(f"Newcomer rules {width}")
    table = make_table(f"Newcomer {width}", variant, betting_seconds=6, deal_interval_ms=400, result_seconds=2)
    user = make_user(f"newcomer{width}", PASSWORD)
    wallet_deposit(user=user, amount=START, reason="test funds")
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, casino_url, user.username)

    problems: list[str] = []
    confirmed: list[tuple[int, str, Decimal]] = []
    lang = None
    last = 0
    for i in range(ROUNDS):
        if LANGUAGES[i % len(LANGUAGES)] != lang:  # a new language: the newcomer reloads the page in it
            lang = LANGUAGES[i % len(LANGUAGES)]
            open_in(page, context, casino_url, table.pk, lang)
        if i == CHANGE_AT:  # the operator changes the Tie's odds while the page is open
            variant.pays_tie = Decimal(9)
            variant.save()
        what = f"{width}x{height} round {i + 1} ({lang})"
        round_id = wait_for_betting(page, after=last, timeout=60_000)
        problems += label_problems(page, round_id, what)

        # one chip on Player or Banker, confirmed
        spot = ("player", "banker")[i % 2]
        page.click("#chips .chip >> nth=0")
        amount = Decimal(page.get_attribute("#chips .chip >> nth=0", "data-value"))
        page.click(f"#spot-{spot}")
        page.click("#confirm")
        page.wait_for_function(
            "(spot) => document.querySelector(`[data-confirmed-for=${spot}]`).textContent.trim() !== ''", arg=spot
        )
        confirmed.append((round_id, spot, amount))
        problems += check_banners(f"{what}, confirmed", page.evaluate(BANNERS))

        if i == PAUSE_AT:  # the operator pauses the table before the deal: the bet is refunded, and the page says so
            in_own_thread(controls.table_pause, table_id=table.pk, reason="newcomer walkthrough")
            page.wait_for_function("document.getElementById('notice').textContent.trim() !== ''")
            time.sleep(1.5)
            notice = page.text_content("#notice").strip()
            assert notice, f"{what}: the pause notice vanished"
            assert page.text_content("#result-text").strip() == "", f"{what}: the last result stays on the stage"
            problems += check_banners(f"{what}, paused", page.evaluate(BANNERS))
            in_own_thread(controls.table_resume, table_id=table.pk)
            last = round_id
            continue
        if i == CANCEL_AT:  # the operator cancels the round: refunded, and the notice lasts into the next round
            in_own_thread(controls.round_cancel, round_id=round_id, reason="newcomer walkthrough")
            page.wait_for_function("document.getElementById('notice').textContent.trim() !== ''")
            next_round = wait_for_betting(page, after=round_id, min_left=0, timeout=60_000)
            assert page.text_content("#notice").strip(), f"{what}: the cancel notice is gone by the next round"
            problems += check_banners(f"{what}, cancelled", page.evaluate(BANNERS))
            last = round_id
            assert next_round > round_id
            continue
        if i == OFFLINE_AT:  # the connection drops for a few seconds during betting, then comes back
            context.set_offline(True)
            page.wait_for_selector("#conn:not([hidden])", timeout=15_000)
            problems += check_banners(f"{what}, offline", page.evaluate(BANNERS))
            time.sleep(2)
            context.set_offline(False)
            page.wait_for_selector("#table[data-connected='1']", timeout=30_000)

        # the deal: while the cards are on the felt, then the result
        page.wait_for_function(
            "(id) => { const t = document.getElementById('table');"
            " return Number(t.dataset.roundId) > id || ['result', 'settled'].includes(t.dataset.roundState); }",
            arg=round_id,
            timeout=60_000,
        )
        state = page.evaluate(STATE)
        if state["roundId"] == round_id:
            # the result is written once the last card has turned (the reveal), unless the next round came first
            page.wait_for_function(
                "(id) => document.getElementById('result-text').textContent.trim() !== ''"
                " || Number(document.getElementById('table').dataset.roundId) > id",
                arg=round_id,
                timeout=15_000,
            )
            problems += check_cards(page.evaluate(CARDS), f"{what}, result", dealt=None)
            problems += check_banners(f"{what}, result", page.evaluate(BANNERS))
            done = Round.objects.get(pk=round_id)
            if lang == "en" and done.winner and page.evaluate(STATE)["roundId"] == round_id:
                high, low = sorted([done.player_total, done.banker_total], reverse=True)
                text = page.text_content("#result-text").strip()
                expected = f"{WINNER_WORDS[done.winner]} {high} – {low}"
                if text != expected:
                    problems.append(f"{what}: the result reads {text!r}, not {expected!r}")
        last = round_id

    page.wait_for_timeout(3000)  # the last round settles
    context.close()
    assert not errors, errors
    assert not problems, "\n".join(problems)

    # no double bet: every confirm is one bet, and nothing else was placed
    bets = list(Bet.objects.filter(user=user).select_related("outcome", "round"))
    assert sorted((b.round_id, b.type, b.amount) for b in bets) == sorted(confirmed)
    # the wallet: the start, less the stakes, plus what each round paid back (refunds included)
    back = sum((b.payout if b.payout is not None else Decimal(0)) for b in bets)
    assert all(b.status != "open" for b in bets), [str(b) for b in bets]
    assert wallet_balance(user=user)["balance"] == START - sum(b.amount for b in bets) + back
    report = casino_reconciliation()
    assert not report.problems, report.problems
