"""Integrity where people act at a live table (tables.services.dealing): a scan sent twice deals once, a scan
names its round and position, a void names its round, the person who dealt a round or raised the call does not
answer it, and every card records who scanned it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from baccarat_site import roles
from baccarat_site.errors import DomainError
from tables.models import Round
from tables.selectors.tables import round_cause
from tables.services import dealing, ticker
from tests.factories import make_staff
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, latest_round, make_player
from tests.tables.services.test_live_dealing import live_table, place, ready_shoe, refused, scan

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer():
    return make_staff("dana", roles.DEALERS)


@pytest.fixture
def supervisor():
    return make_staff("sam", roles.SUPERVISORS)


def dealing_table(dealer, clock: Clock):
    table = live_table(dealer)
    ready_shoe(table, dealer, clock)
    return table, drive_to_state(table, clock, Round.State.DEALING)


def test_a_scan_sent_twice_with_its_key_deals_once_and_answers_the_first_answer(dealer):
    """The finding: {"card": "4H"} sent twice dealt 4H as P1 and again as B1."""
    clock = Clock()
    table, _round = dealing_table(dealer, clock)
    first = dealing.card_scan(table_id=table.pk, code="4H", actor=dealer, key="scan-1", now=clock.now)
    again = dealing.card_scan(table_id=table.pk, code="4H", actor=dealer, key="scan-1", now=clock.now)
    assert again == first
    assert [c["card"] for c in latest_round(table).cards] == ["4H"]
    assert first["dealt"]["scanned_by"] == dealer.pk
    assert first["dealt"]["key"] == "scan-1"
    # The same key for another card is a conflict, and deals nothing.
    refused("idempotency_conflict", dealing.card_scan, table_id=table.pk, code="9S", actor=dealer, key="scan-1")
    assert len(latest_round(table).cards) == 1


def test_a_repeat_after_the_round_has_its_result_deals_nothing_into_the_next_round(dealer):
    clock = Clock()
    table, round_ = dealing_table(dealer, clock)
    for number, code in enumerate(["4H", "2C", "3D", "5S"], start=1):
        dealing.card_scan(table_id=table.pk, code=code, actor=dealer, key=f"k{number}", now=clock.now)
    assert len(Round.objects.get(pk=round_.pk).cards) == 4
    again = dealing.card_scan(table_id=table.pk, code="5S", actor=dealer, key="k4", now=clock.now)
    assert again["dealt"]["position"] == 4
    assert len(Round.objects.get(pk=round_.pk).cards) == 4


def test_a_scan_named_by_round_and_position_deals_once_and_only_at_the_next_position(dealer):
    clock = Clock()
    table, round_ = dealing_table(dealer, clock)
    refused(
        "wrong_position", dealing.card_scan, table_id=table.pk, code="4H", actor=dealer, round_id=round_.pk, position=2
    )
    first = dealing.card_scan(table_id=table.pk, code="4H", actor=dealer, round_id=round_.pk, position=1)
    assert dealing.card_scan(table_id=table.pk, code="4H", actor=dealer, round_id=round_.pk, position=1) == first
    refused(
        "position_taken", dealing.card_scan, table_id=table.pk, code="7C", actor=dealer, round_id=round_.pk, position=1
    )
    refused(
        "round_changed",
        dealing.card_scan,
        table_id=table.pk,
        code="7C",
        actor=dealer,
        round_id=round_.pk + 99,
        position=1,
    )
    assert [c["card"] for c in latest_round(table).cards] == ["4H"]


def test_the_burn_cards_scan_repeated_before_the_burn_answers_the_first_answer(dealer):
    clock = Clock()
    table = live_table(dealer)
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "shuffled"
    first = dealing.card_scan(table_id=table.pk, code="3C", actor=dealer, key="b1", now=clock.now)
    assert dealing.card_scan(table_id=table.pk, code="3C", actor=dealer, key="b2", now=clock.now) == first
    refused("burn_done", dealing.card_scan, table_id=table.pk, code="4C", actor=dealer, key="b3", now=clock.now)


def test_whoever_dealt_the_round_cannot_resume_or_void_it(dealer, supervisor):
    """A supervisor who took the shift and dealt is refused his own round; another supervisor answers."""
    clock = Clock()
    table, round_ = dealing_table(dealer, clock)
    # The supervisor takes the shift (audited) before the first card, and deals.
    dealing.shift_take(table_id=table.pk, actor=supervisor, now=clock.now)
    scan(table, supervisor, clock, "4H")
    dealing.supervisor_call(table_id=table.pk, actor=supervisor, reason="misdeal", now=clock.now)
    for service in (dealing.supervisor_resume, dealing.supervisor_void):
        with pytest.raises(DomainError) as caught:
            service(table_id=table.pk, actor=supervisor, reason="mine", now=clock.now)
        assert caught.value.code == "own_round"
    other = make_staff("sue", roles.SUPERVISORS)
    assert (
        dealing.supervisor_void(table_id=table.pk, actor=other, reason="misdeal", round_id=round_.pk)["refunded"] == 0
    )


def test_a_supervisor_call_is_answered_by_someone_else(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer)
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.BETTING)
    # A supervisor at the console (on shift) calls before any card: he may not answer his own call.
    dealing.shift_take(table_id=table.pk, actor=supervisor, now=clock.now)
    dealing.supervisor_call(table_id=table.pk, actor=supervisor, reason="camera", now=clock.now)
    with pytest.raises(DomainError) as caught:
        dealing.supervisor_resume(table_id=table.pk, actor=supervisor, reason="fine", now=clock.now)
    assert caught.value.code == "own_call"
    assert dealing.supervisor_resume(table_id=table.pk, actor=make_staff("sue", roles.SUPERVISORS), reason="ok")


def test_a_table_operator_answers_no_supervisor_call(dealer):
    clock = Clock()
    table, _round = dealing_table(dealer, clock)
    scan(table, dealer, clock, "4H")
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="help", now=clock.now)
    operator = make_staff("tom", roles.TABLE_OPERATORS)
    for service in (dealing.supervisor_resume, dealing.supervisor_void):
        with pytest.raises(dealing.NotADealer) as caught:
            service(table_id=table.pk, actor=operator, reason="ok", now=clock.now)
        assert caught.value.code == "not_supervisor"


def test_a_voided_round_tells_players_the_supervisor_voided_it(dealer, supervisor):
    clock = Clock()
    table = live_table(dealer)
    alice = make_player("alice", "100.00")
    ready_shoe(table, dealer, clock)
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, round_, clock, ("banker", "10.00"))
    drive_to_state(table, clock, Round.State.DEALING)
    scan(table, dealer, clock, "4H")
    dealing.supervisor_call(table_id=table.pk, actor=dealer, reason="misdeal", now=clock.now)
    dealing.supervisor_void(table_id=table.pk, actor=supervisor, reason="misdeal", round_id=round_.pk, now=clock.now)
    assert round_cause(Round.objects.get(pk=round_.pk)) == "supervisor"
    assert balance_of(alice) == Decimal("100.00")


def test_the_admin_round_page_names_the_dealer_and_who_scanned_each_card(dealer, supervisor, client):
    """Game recall: after a shift change the round names the one who dealt it, and every card its scanner."""
    clock = Clock()
    table = live_table(dealer)
    ready_shoe(table, dealer, clock)
    round_ = drive_to_state(table, clock, Round.State.CLOSED)
    dealing.shift_take(table_id=table.pk, actor=supervisor, now=clock.now)  # the shift changes before the deal
    scan(table, supervisor, clock, "4H 2C")
    round_.refresh_from_db()
    assert round_.dealer_id == supervisor.pk
    admin = make_staff("audrey", roles.AUDITORS)
    client.force_login(admin)
    html = client.get(f"/admin/tables/round/{round_.pk}/change/").content.decode()
    assert "Scanned by" in html
    assert html.count('<td class="scanned-by">sam</td>') == 2
    assert "sam" in html.split("Dealer", 1)[1][:400]


def test_a_void_repeated_after_its_round_settled_touches_nothing(dealer, supervisor):
    """The finding: a repeated void cancelled the *next* round. A void names its round: after that round has
    settled it is refused, and the round now open keeps its bets."""
    clock = Clock()
    table = live_table(dealer)
    alice = make_player("alice", "100.00")
    ready_shoe(table, dealer, clock)
    drive_to_state(table, clock, Round.State.DEALING)
    settled = latest_round(table)
    scan(table, dealer, clock, "4H 2C 3D 5S")  # player 7, banker 7: no third card
    drive_to_state(table, clock, Round.State.SETTLED)
    following = drive_to_state(table, clock, Round.State.BETTING)
    place(alice, following, clock, ("banker", "10.00"))
    refused(
        "round_has_result",
        dealing.supervisor_void,
        table_id=table.pk,
        actor=supervisor,
        reason="late click",
        round_id=settled.pk,
        now=clock.now,
    )
    assert Round.objects.get(pk=following.pk).state == Round.State.BETTING
    assert balance_of(alice) == Decimal("90.00")
