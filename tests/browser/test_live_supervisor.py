"""A live table's supervisor, seen from the players' table pages, in headless Chromium against a real casino: the
dealer calls the supervisor after two cards and the players read "Paused: the supervisor is on the way"; a
supervisor, signed in as themselves at the console, resumes with a reason, the dealer finishes the round and the
players are paid; in the next round the supervisor voids the round after three cards and every stake comes back to
the cent. A silent dealer (no card within the table's time after the close) and a console that disconnects mid-round
pause the table and call the supervisor by themselves (docs/rules.md, "Live dealer tables")."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from playwright.sync_api import expect

from baccarat_site import roles
from tables.models import Bet, Round, SupervisorCall, Table
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
    wait_until,
)
from tests.factories import make_staff
from wallets.models import Wallet

# The casino audits the dealer's and the supervisor's every step: keep the content type ids it cached.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("content_type_ids_kept")]

START = Decimal("1000.00")
SUPERVISOR_NOTICE = "Paused: the supervisor is on the way"
DEALERS_REASON = "Card flipped on the felt"
RESUME_REASON = "Card seen by the camera: go on"
VOID_REASON = "Second card stuck to the third: void"


@pytest.fixture
def players():
    return funded_players("carol", "dave", amount=START)


def balance(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def open_page(browser, console_errors, casino_url: str, username: str, path: str):
    """A signed-in page of its own (a context per person, as on separate devices)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    console_errors.watch(page)
    log_in(page, casino_url, username)
    page.goto(casino_url + path)
    return context, page


def open_table(browser, console_errors, casino_url: str, username: str, table: Table):
    context, page = open_page(browser, console_errors, casino_url, username, f"/tables/{table.pk}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=30_000)
    return context, page


def bet(page, spot: str, times: int = 1, value: int = 25) -> None:
    chip(page, value)
    for _ in range(times):
        page.locator(f"button.spot[data-type={spot}]").click()


def supervisor_notice_shown(page, timeout: float) -> None:
    expect(page.locator("#notice")).to_contain_text(SUPERVISOR_NOTICE, timeout=timeout)
    expect(page.locator("#phase")).to_have_attribute("data-phase", "paused")


def reason_dialog(page, button: str, reason: str) -> None:
    page.click(button)
    expect(page.locator("#dc-reason")).to_be_visible()
    page.fill("#dc-reason-input", reason)
    page.click("#dc-reason-ok")
    expect(page.locator("#dc-reason")).to_be_hidden()


def test_called_resumed_finished_then_voided_with_exact_refunds(casino_url, browser, page, players, console_errors):
    dealer = make_staff("dora", roles.DEALERS, first_name="Dora")
    supervisor = make_staff("sam", roles.SUPERVISORS, first_name="Sam")
    carol, dave = players
    table = live_table("Live supervisor", betting_seconds=30, result_seconds=10)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    contexts = []
    try:
        context, sup = open_page(browser, console_errors, casino_url, "sam", f"/dealer/tables/{table.pk}/")
        contexts.append(context)
        expect(console(sup)).to_have_attribute("data-connected", "1", timeout=30_000)
        expect(sup.locator("#dc-resume")).to_be_visible()
        expect(sup.locator("#dc-void")).to_be_visible()
        pages = []
        for user in players:
            context, player_page = open_table(browser, console_errors, casino_url, user.username, table)
            contexts.append(context)
            pages.append(player_page)
            expect(player_page.locator("#balance")).to_have_text("1,000.00")
        carol_page, dave_page = pages

        # Round 1: 50 on Player, 25 on Banker; the dealer calls the supervisor after two cards.
        take_shift_and_burn(page, "5H")
        ids = {wait_for_betting(p, min_left=18, timeout=60_000) for p in pages}
        assert len(ids) == 1
        (first,) = ids
        bet(carol_page, "player", 2)
        carol_page.click("#confirm")
        bet(dave_page, "banker")
        dave_page.click("#confirm")
        for p, shown in ((carol_page, "950.00"), (dave_page, "975.00")):
            expect(p.locator("#notice")).to_have_text("Bets confirmed")
            expect(p.locator("#balance")).to_have_text(shown)
        wait_for_close(page, timeout=60_000)
        assert console(page).get_attribute("data-round-id") == str(first)
        deal(page, [("3H", "P1"), ("2C", "B1")])
        reason_dialog(page, "#dc-supervisor", DEALERS_REASON)
        expect(page.locator("#dc-paused")).to_have_text(SUPERVISOR_NOTICE, timeout=30_000)
        for p in pages:
            supervisor_notice_shown(p, timeout=30_000)
            expect(p.locator("#player-cards .card")).to_have_count(1)  # the two cards stay on the felt
            expect(p.locator("#banker-cards .card")).to_have_count(1)
        call = SupervisorCall.objects.get(table=table)
        assert (call.kind, call.called_by_id, call.reason) == ("called", dealer.pk, DEALERS_REASON)
        assert (call.round_id, call.resolved_at) == (first, None)
        assert Round.objects.get(pk=first).state == Round.State.PAUSED
        scan(page, "4D")  # a card while the supervisor is on the way deals nothing
        expect(page.locator("#dc-rescan")).to_have_attribute("data-code", "paused", timeout=30_000)
        console_errors.allow(r"409")

        # The supervisor resumes from the console, signed in as themselves, with a reason.
        expect(sup.locator("#dc-paused")).to_be_visible(timeout=30_000)
        reason_dialog(sup, "#dc-resume", RESUME_REASON)
        expect(sup.locator("#dc-notice")).to_have_text("Resumed.")
        for p in pages:
            expect(p.locator("#notice")).not_to_contain_text(SUPERVISOR_NOTICE, timeout=30_000)
            expect(p.locator("#phase")).not_to_have_attribute("data-phase", "paused")
        call.refresh_from_db()
        assert (call.resolution, call.resolved_by_id, call.note) == ("resumed", supervisor.pk, RESUME_REASON)
        expect(page.locator("#dc-paused")).to_be_hidden(timeout=30_000)
        # The round goes on from its two cards: Player 7 stands, Banker 5 draws and loses.
        deal(page, [("4D", "P2"), ("3S", "B2"), ("KD", "B3")])
        expect(page.locator("#dc-winner")).to_have_text("Player wins", timeout=30_000)
        for p in pages:
            expect(p.locator("#result")).to_have_attribute("data-winner", "player", timeout=30_000)
            shown = p.locator("#player-cards .card, #banker-cards .card").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert sorted(shown) == sorted(["3H", "2C", "4D", "3S", "KD"])
        expect(carol_page.locator("#balance")).to_have_text("1,050.00", timeout=30_000)  # 50 on Player, paid 1:1
        expect(dave_page.locator("#balance")).to_have_text("975.00")  # 25 on Banker, lost
        wait_until(
            lambda: Round.objects.get(pk=first).state == Round.State.SETTLED, timeout=30, message="round 1 settled"
        )
        played = Round.objects.get(pk=first)
        assert [c["card"] for c in played.cards] == ["3H", "2C", "4D", "3S", "KD"]
        assert played.winner == "player"
        assert (balance(carol), balance(dave)) == (Decimal("1050.00"), Decimal("975.00"))
        resumed = LogEntry.objects.get_for_object(table).get(
            additional_data__action="table.resume", additional_data__reason=RESUME_REASON
        )
        assert resumed.actor_id == supervisor.pk

        # Round 2: 75 from Carol (50 Banker, 25 Tie), 25 from Dave (Player); voided by the supervisor after
        # three cards: every stake back to the cent, on the page and in the wallets.
        before = {carol.pk: balance(carol), dave.pk: balance(dave)}
        ids = {wait_for_betting(p, min_left=18, after=first, timeout=60_000) for p in pages}
        assert len(ids) == 1
        (second,) = ids
        bet(carol_page, "banker", 2)
        bet(carol_page, "tie")
        carol_page.click("#confirm")
        bet(dave_page, "player")
        dave_page.click("#confirm")
        for p, shown in ((carol_page, "975.00"), (dave_page, "950.00")):
            expect(p.locator("#notice")).to_have_text("Bets confirmed")
            expect(p.locator("#balance")).to_have_text(shown)
        assert (balance(carol), balance(dave)) == (Decimal("975.00"), Decimal("950.00"))
        wait_for_close(page, timeout=60_000)
        assert console(page).get_attribute("data-round-id") == str(second)
        deal(page, [("9D", "P1"), ("8C", "B1"), ("QH", "P2")])
        for p in pages:
            expect(p.locator("#player-cards .card, #banker-cards .card")).to_have_count(3, timeout=30_000)
        reason_dialog(sup, "#dc-void", VOID_REASON)
        expect(sup.locator("#dc-notice")).to_have_text("The round is void and every stake refunded.")
        expect(carol_page.locator("#balance")).to_have_text("1,050.00", timeout=30_000)
        expect(dave_page.locator("#balance")).to_have_text("975.00", timeout=30_000)
        for p in pages:
            expect(p.locator("#player-cards .card, #banker-cards .card")).to_have_count(0)
        # Players are told in words that the supervisor voided the round, and what came back to them.
        number = Round.objects.get(pk=second).number
        expect(carol_page.locator("#notice")).to_contain_text(f"Round {number} was voided by the supervisor.")
        expect(carol_page.locator("#notice")).to_contain_text("Your bets on it were refunded: 75.00.")
        assert {carol.pk: balance(carol), dave.pk: balance(dave)} == before
        voided = Round.objects.get(pk=second)
        assert voided.state == Round.State.CANCELLED
        assert voided.cancelled_at is not None
        assert [c["card"] for c in voided.cards] == ["9D", "8C", "QH"]
        assert sorted((b.status, b.amount) for b in Bet.objects.filter(round=voided)) == [
            ("refunded", Decimal("25.00")),
            ("refunded", Decimal("25.00")),
            ("refunded", Decimal("50.00")),
        ]
        cancel = LogEntry.objects.get_for_object(voided).get(additional_data__action="round.cancel")
        assert cancel.actor_id == supervisor.pk
        assert VOID_REASON in cancel.additional_data["reason"]
        assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN  # the table goes on
    finally:
        for context in contexts:
            context.close()


def test_a_silent_dealer_pauses_the_round_and_calls_the_supervisor(casino_url, browser, page, players, console_errors):
    make_staff("dora", roles.DEALERS, first_name="Dora")
    table = live_table("Silent dealer", betting_seconds=8, result_seconds=3, dealer_timeout_seconds=10)
    log_in(page, casino_url, "dora")
    open_console(page, casino_url, table)
    context, carol_page = open_table(browser, console_errors, casino_url, "carol", table)
    try:
        take_shift_and_burn(page, "5H")
        round_id = wait_for_betting(carol_page, min_left=3, timeout=60_000)
        bet(carol_page, "player")
        carol_page.click("#confirm")
        expect(carol_page.locator("#balance")).to_have_text("975.00")
        wait_for_close(page, timeout=60_000)
        closed = time.monotonic()
        # Nobody scans. The table's time is 10 s: the players are told within a few more.
        supervisor_notice_shown(carol_page, timeout=45_000)
        waited = time.monotonic() - closed
        assert waited >= 5, f"paused {waited:.1f} s after the close, before the dealer's 10 s"
        call = SupervisorCall.objects.get(table=table)
        assert (call.kind, call.round_id, call.called_by_id, call.resolved_at) == ("silent", round_id, None, None)
        paused = Round.objects.get(pk=round_id)
        assert (paused.state, paused.cards) == (Round.State.PAUSED, [])
        # Its bets stay in play, waiting for the supervisor.
        assert Bet.objects.get(round=paused).status == "open"
        assert balance(players[0]) == Decimal("975.00")
        expect(page.locator("#dc-paused")).to_be_visible(timeout=30_000)
    finally:
        context.close()


def test_a_console_that_disconnects_mid_round_calls_the_supervisor(casino_url, browser, page, players, console_errors):
    make_staff("dora", roles.DEALERS, first_name="Dora")
    table = live_table("Console lost", betting_seconds=8, result_seconds=3)
    log_in(page, casino_url, "carol")
    page.goto(f"{casino_url}/tables/{table.pk}/")
    expect(page.locator("#table")).to_have_attribute("data-connected", "1", timeout=30_000)
    context, dealer_page = open_page(browser, console_errors, casino_url, "dora", f"/dealer/tables/{table.pk}/")
    try:
        expect(console(dealer_page)).to_have_attribute("data-connected", "1", timeout=30_000)
        take_shift_and_burn(dealer_page, "5H")
        round_id = wait_for_betting(page, min_left=3, timeout=60_000)
        bet(page, "banker", 2)
        page.click("#confirm")
        expect(page.locator("#balance")).to_have_text("950.00")
        wait_for_close(dealer_page, timeout=60_000)
        deal(dealer_page, [("7S", "P1")])
        expect(page.locator("#player-cards .card")).to_have_count(1, timeout=30_000)
        dealer_page.close()
        closed = time.monotonic()
        supervisor_notice_shown(page, timeout=45_000)
        waited = time.monotonic() - closed
        assert waited >= 3, f"paused {waited:.1f} s after the console closed, inside its 5 s grace"
        call = SupervisorCall.objects.get(table=table)
        assert (call.kind, call.round_id, call.called_by_id, call.resolved_at) == ("console", round_id, None, None)
        paused = Round.objects.get(pk=round_id)
        assert paused.state == Round.State.PAUSED
        assert [c["card"] for c in paused.cards] == ["7S"]  # a started round waits to be completed
        assert Bet.objects.get(round=paused).status == "open"
        assert balance(players[0]) == Decimal("950.00")
    finally:
        context.close()
