"""Live dealer tables (tables.services.dealing, tables.services.sources): a dealer scans a physical shoe; the same
rounds, bets and settlement as the server's shoe, and the seeds' rules about the scanner, the supervisor and a
silent dealer."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from auditlog.models import LogEntry

from baccarat_site import roles
from tables.models import Round, Shoe, SupervisorCall, Table
from tables.services import dealing, ticker
from tables.services.placement import bet_place
from tables.services.sources import DealingRefused
from tests.factories import make_staff, make_variant
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, fast_table, latest_round, make_player

pytestmark = pytest.mark.django_db


def place(user, round_: Round, clock: Clock, *bets: tuple[str, str]) -> None:
    """Bets at the test's clock (the round's window is on it, not on the wall clock)."""
    bet_place(
        user=user,
        round_id=round_.pk,
        mode="traditional",
        bets=[{"type": t, "amount": a} for t, a in bets],
        idempotency_key=str(uuid.uuid4()),
        now=clock.now,
    )


@pytest.fixture
def dealer():
    return make_staff("dana", roles.DEALERS)


@pytest.fixture
def supervisor():
    return make_staff("sam", roles.SUPERVISORS)


def live_table(dealer, name: str = "Live 1", **fields) -> Table:
    return fast_table(name, dealing=Table.Dealing.LIVE, dealer=dealer, betting_seconds=5, **fields)


def ready_shoe(table: Table, dealer, clock: Clock, burn: str = "3C") -> None:
    """The ticker starts a live shoe; the dealer scans the burn card and confirms the burn."""
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "shuffled"
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None  # no round before the burn
    assert dealing.card_scan(table_id=table.pk, code=burn, actor=dealer, now=clock.now)["burn"]["card"] == burn
    dealing.burn_confirm(table_id=table.pk, actor=dealer, now=clock.now)


def scan(table: Table, dealer, clock: Clock, codes: str) -> list[dict]:
    out = []
    for code in codes.split():
        clock.advance(0.5)
        out.append(dealing.card_scan(table_id=table.pk, code=code, actor=dealer, now=clock.now)["dealt"])
    return out


def refused(expected: str, fn, **kwargs) -> None:
    with pytest.raises(DealingRefused) as error:
        fn(**kwargs)
    assert error.value.code == expected, error.value.detail


def test_a_live_round_is_dealt_from_the_scans_and_settled_like_any_other(dealer):
    clock = Clock()
    table = live_table(dealer)
    alice, bob = make_player("alice", "100.00"), make_player("bob", "100.00")
    ready_shoe(table, dealer, clock, burn="7S")
    shoe = Shoe.objects.get(table=table)
    assert shoe.is_live
    assert (shoe.burn_card, shoe.burn_count, shoe.server_seed) == ("7S", 7, "")
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, round_, clock, ("banker", "10.00"))
    place(bob, round_, clock, ("player", "10.00"))
    refused("betting_open", dealing.card_scan, table_id=table.pk, code="4H", actor=dealer, now=clock.now)
    round_ = drive_to_state(table, clock, Round.State.DEALING)
    assert round_.dealer == dealer
    # Player 4+3 = 7 stands; Banker 2+A = 3 draws against no third card of Player's: only the Banker draws.
    dealt = scan(table, dealer, clock, "4H 2C 3D AS")
    assert [d["hand"] for d in dealt] == ["player", "banker", "player", "banker"]
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None  # waits for the fifth card, never guesses
    refused("rescan", dealing.card_scan, table_id=table.pk, code="ZZ", actor=dealer, now=clock.now)
    (fifth,) = scan(table, dealer, clock, "5C")
    assert (fifth["hand"], fifth["position"]) == ("banker", 5)
    refused("hand_complete", dealing.card_scan, table_id=table.pk, code="6C", actor=dealer, now=clock.now)
    round_ = drive_to_state(table, clock, Round.State.SETTLED)
    assert (round_.player_total, round_.banker_total, round_.winner) == (7, 8, "banker")
    assert [c["card"] for c in round_.cards] == ["4H", "2C", "3D", "AS", "5C"]
    assert all(c["dealt_at"] for c in round_.cards)
    assert balance_of(alice) == Decimal("109.50")  # 10 at 0.95:1
    assert balance_of(bob) == Decimal("90.00")
    state = Shoe.objects.get(pk=shoe.pk).state
    assert state["position"] == 1 + 7 + 5


def test_a_card_the_shoe_cannot_hold_is_refused_and_nothing_is_dealt(dealer):
    clock = Clock()
    table = live_table(dealer, variant=make_variant("One deck", decks=1, cut_min=6, cut_max=13))
    ready_shoe(table, dealer, clock, burn="KH")
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "AS")
    refused("card_impossible", dealing.card_scan, table_id=table.pk, code="AS", actor=dealer, now=clock.now)
    refused("card_impossible", dealing.card_scan, table_id=table.pk, code="KH", actor=dealer, now=clock.now)
    round_ = latest_round(table)
    assert [c["card"] for c in round_.cards] == ["AS"]
    assert Shoe.objects.get(table=table).state["seen"] == {"AS": 1, "KH": 1}


def test_the_cut_card_makes_the_round_the_last_and_the_next_shoe_waits_for_its_burn(dealer):
    clock = Clock()
    table = live_table(dealer)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    assert dealing.cut_card_out(table_id=table.pk, actor=dealer, now=clock.now)["last_round"] == 1
    scan(table, dealer, clock, "9H 2C KD AS")  # a natural: four cards
    round_ = drive_to_state(table, clock, Round.State.SETTLED)
    assert round_.is_last_of_shoe
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "shuffled"
    shoes = list(Shoe.objects.filter(table=table).order_by("number"))
    assert shoes[0].finished_at is not None
    assert shoes[1].state["burn_card"] == ""
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None  # no round until the new shoe is burned
    refused("burn_pending", dealing.burn_confirm, table_id=table.pk, actor=dealer, now=clock.now)


def test_calling_the_supervisor_pauses_and_the_supervisor_resumes_the_started_round(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer)
    alice = make_player("alice", "100.00")
    ready_shoe(table, dealer, clock)
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, round_, clock, ("player", "20.00"))
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "4H 2C")
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="card dropped", now=clock.now)
    table.refresh_from_db()
    assert (table.status, table.pause_notice) == (Table.Status.PAUSED, "supervisor")
    assert latest_round(table).state == Round.State.PAUSED
    call = SupervisorCall.objects.get(table=table)
    assert (call.kind, call.called_by, call.round_id) == ("called", dealer, round_.pk)
    refused("paused", dealing.card_scan, table_id=table.pk, code="3D", actor=dealer, now=clock.now)
    with pytest.raises(dealing.NotADealer):
        dealing.supervisor_resume(table_id=table.pk, actor=dealer, reason="mine", now=clock.now)
    dealing.supervisor_resume(table_id=table.pk, actor=supervisor, reason="card found, go on", now=clock.now)
    call.refresh_from_db()
    assert (call.resolution, call.resolved_by) == ("resumed", supervisor)
    assert latest_round(table).state == Round.State.DEALING
    scan(table, dealer, clock, "3D AS 5C")
    round_ = drive_to_state(table, clock, Round.State.SETTLED)
    assert round_.winner == "banker"
    assert balance_of(alice) == Decimal("80.00")
    actions = set(LogEntry.objects.values_list("additional_data__action", flat=True))
    assert {"table.pause", "table.resume"} <= actions


def test_the_supervisor_voids_a_dealt_round_with_exact_refunds(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer)
    alice, bob = make_player("alice", "100.00"), make_player("bob", "55.55")
    ready_shoe(table, dealer, clock)
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, round_, clock, ("player", "12.34"), ("tie", "1.00"))
    place(bob, round_, clock, ("banker", "55.55"))
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "4H 2C 3D")
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="misdeal", now=clock.now)
    result = dealing.supervisor_void(
        table_id=table.pk, actor=supervisor, reason="misdeal confirmed", round_id=round_.pk, now=clock.now
    )
    assert result == {"round_id": round_.pk, "number": 1, "refunded": 3, "repeat": False}
    assert Round.objects.get(pk=round_.pk).state == Round.State.CANCELLED
    assert balance_of(alice) == Decimal("100.00")
    assert balance_of(bob) == Decimal("55.55")
    call = SupervisorCall.objects.get(table=table)
    assert (call.resolution, call.resolved_by) == ("cancelled", supervisor)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN  # the table goes on with its next round
    following = drive_to_state(table, clock, Round.State.BETTING)
    assert following.number == 2
    place(alice, following, clock, ("banker", "10.00"))
    # The same void again (a lost answer, a second click) answers the first answer and never touches round 2.
    again = dealing.supervisor_void(
        table_id=table.pk, actor=supervisor, reason="misdeal confirmed", round_id=round_.pk, now=clock.now
    )
    assert again == {"round_id": round_.pk, "number": 1, "refunded": 3, "repeat": True}
    assert Round.objects.get(pk=following.pk).state == Round.State.BETTING
    assert balance_of(alice) == Decimal("90.00")
    entry = LogEntry.objects.filter(additional_data__action="round.cancel").get()
    assert entry.actor == supervisor
    assert "misdeal confirmed" in entry.additional_data["reason"]


def test_a_silent_dealer_pauses_the_round_and_calls_the_supervisor(dealer):
    clock = Clock()
    table = live_table(dealer, dealer_timeout_seconds=30)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "4H")
    clock.advance(29)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    clock.advance(1.5)
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "paused"
    table.refresh_from_db()
    assert (table.status, table.pause_notice) == (Table.Status.PAUSED, "supervisor")
    round_ = latest_round(table)
    assert (round_.state, round_.paused_from) == (Round.State.PAUSED, Round.State.DEALING)
    assert SupervisorCall.objects.get(table=table).kind == SupervisorCall.Kind.SILENT


def test_after_a_long_pause_the_dealer_has_their_whole_time_again_from_the_resume(dealer, supervisor):
    """The time the table stood paused is not the dealer's: a resume after more than the dealer's time does not
    pause the round again at once (seen on the demo table: re-paused one second after the resume)."""
    clock = Clock()
    table = live_table(dealer, dealer_timeout_seconds=30)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "4H 2C")
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="card dropped", now=clock.now)
    clock.advance(120)  # the supervisor takes two minutes
    dealing.supervisor_resume(table_id=table.pk, actor=supervisor, reason="found it", now=clock.now)
    round_ = latest_round(table)
    assert (round_.state, round_.resumed_at) == (Round.State.DEALING, clock.now)
    clock.advance(1)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    clock.advance(28)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert latest_round(table).state == Round.State.DEALING
    scan(table, dealer, clock, "3D")  # the next card is taken: 29.5 s after the resume
    clock.advance(30.5)  # and the dealer's time runs from that card again
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "paused"
    assert SupervisorCall.objects.filter(table=table, kind=SupervisorCall.Kind.SILENT).count() == 1


def test_a_silent_dealer_before_the_first_card_pauses_too_and_a_cancel_refunds(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer, dealer_timeout_seconds=10)
    alice = make_player("alice", "100.00")
    ready_shoe(table, dealer, clock)
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, round_, clock, ("player", "10.00"))
    drive_to_state(table, clock, Round.State.DEALING)
    clock.advance(11)
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "paused"
    dealing.supervisor_void(table_id=table.pk, actor=supervisor, reason="dealer unwell", now=clock.now)
    assert balance_of(alice) == Decimal("100.00")


def test_a_console_that_disconnects_mid_round_pauses_it_after_the_grace(dealer):
    clock = Clock()
    table = live_table(dealer)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    dealing.console_disconnected(table_id=table.pk, now=clock.now)
    clock.advance(dealing.CONSOLE_GRACE_SECONDS - 1)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    dealing.console_connected(table_id=table.pk)  # a reload: back within the grace
    clock.advance(2)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    dealing.console_disconnected(table_id=table.pk, now=clock.now)
    clock.advance(dealing.CONSOLE_GRACE_SECONDS)
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "paused"
    assert SupervisorCall.objects.get(table=table).kind == SupervisorCall.Kind.CONSOLE


def test_only_the_dealer_on_shift_deals_and_a_supervisor_takes_the_shift_first(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer)
    player = make_player("pat", "10.00")
    other = make_staff("otto", roles.DEALERS)
    operator = make_staff("olga", roles.CASHIERS)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    table_operator = make_staff("tom", roles.TABLE_OPERATORS)
    for who, code in (
        (player, "not_dealer"),
        (operator, "not_dealer"),
        (table_operator, "not_dealer"),  # Table operators run tables; they neither deal nor supervise live rounds
        (other, "not_on_shift"),
        (supervisor, "not_on_shift"),  # a supervisor who deals takes the shift first
    ):
        with pytest.raises(dealing.NotADealer) as error:
            dealing.card_scan(table_id=table.pk, code="4H", actor=who, now=clock.now)
        assert error.value.code == code
    assert latest_round(table).cards == []
    for who in (player, table_operator):
        with pytest.raises(dealing.NotADealer):
            dealing.shift_take(table_id=table.pk, actor=who, now=clock.now)
    dealing.shift_take(table_id=table.pk, actor=supervisor, now=clock.now)
    shift = LogEntry.objects.filter(additional_data__action="table.dealer").latest("timestamp")
    assert (shift.actor_id, shift.additional_data["reason"]) == (supervisor.pk, "shift taken by a supervisor")
    scan(table, supervisor, clock, "4H")  # on shift now, the supervisor deals as themselves
    assert latest_round(table).cards[0]["scanned_by"] == supervisor.pk
    refused("round_dealing", dealing.shift_take, table_id=table.pk, actor=other, now=clock.now)


def test_a_dealer_takes_the_shift_between_rounds(dealer):
    clock = Clock()
    table = live_table(None)
    dealing.shift_take(table_id=table.pk, actor=dealer, now=clock.now)
    assert Table.objects.get(pk=table.pk).dealer == dealer
    entry = LogEntry.objects.filter(additional_data__action="table.dealer").get()
    assert entry.changes["dealer"] == [None, "dana"]


def test_a_server_shoe_table_takes_no_scans(dealer):
    table = fast_table("Shoe table")
    with pytest.raises(Exception) as error:
        dealing.card_scan(table_id=table.pk, code="AS", actor=dealer)
    assert error.value.code == "not_live"
