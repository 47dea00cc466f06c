"""The round state machine: transitions, idempotence, a whole shoe."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from tables import engine, tasks
from tables.events import table_group
from tables.models import Round, Shoe, Table
from tables.selectors.tables import due_table_ids
from tables.services import ticker, transitions
from tests.tables.services.rounds_kit import (
    Clock,
    GroupListener,
    balance_of,
    drive,
    drive_to_state,
    fast_table,
    latest_round,
    make_player,
    place,
)

pytestmark = pytest.mark.django_db


def test_an_open_table_without_rounds_shuffles_a_shoe_and_opens_round_one():
    table = fast_table()
    clock = Clock()

    assert ticker.table_step(table_id=table.pk, now=clock.now) == "shuffled"
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "opened"

    shoe = Shoe.objects.get(table=table)
    round_ = latest_round(table)
    assert (shoe.number, shoe.finished_at) == (1, None)
    assert shoe.commitment == engine.commitment(shoe.server_seed)
    assert (round_.number, round_.state, round_.shoe_id) == (1, "betting", shoe.pk)
    assert timedelta(0) <= clock.now - round_.opens_at < timedelta(milliseconds=1)
    assert round_.opens_at.microsecond % 1000 == 0
    assert round_.closes_at == round_.opens_at + timedelta(seconds=table.betting_seconds)
    assert Table.objects.get(pk=table.pk).next_action_at == round_.closes_at


def test_a_tick_with_nothing_due_does_nothing():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "betting")
    before = Round.objects.get(table=table)
    listener = GroupListener(table_group(table.pk))

    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert due_table_ids(now=clock.now) == []
    assert tasks.tables_sweep() == 0

    after = Round.objects.get(table=table)
    assert (after.state, after.closes_at, after.cards) == (before.state, before.closes_at, before.cards)
    assert listener.types() == []


def test_the_window_does_not_close_one_millisecond_before_closes_at():
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")

    assert ticker.table_step(table_id=table.pk, now=round_.closes_at - timedelta(milliseconds=1)) is None
    assert transitions.round_close(round_id=round_.pk, now=round_.closes_at - timedelta(milliseconds=1)) is False
    assert ticker.table_step(table_id=table.pk, now=round_.closes_at) == "closed"
    assert Round.objects.get(pk=round_.pk).closed_at == round_.closes_at


def test_the_round_is_paid_settle_delay_ms_after_its_result_and_not_a_millisecond_before():
    table = fast_table(settle_delay_ms=750)
    clock = Clock()
    round_ = drive_to_state(table, clock, "result")
    due = round_.result_at + timedelta(milliseconds=750)

    assert Table.objects.get(pk=table.pk).next_action_at == due
    assert ticker.table_step(table_id=table.pk, now=due - timedelta(milliseconds=1)) is None
    assert Round.objects.get(pk=round_.pk).state == "result"
    assert ticker.table_step(table_id=table.pk, now=due) == "settled"


def test_a_table_cannot_wait_more_than_ten_seconds_to_pay():
    table = fast_table()
    table.settle_delay_ms = 10_001
    with pytest.raises(ValidationError, match="settle_delay_ms"):
        table.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        table.save()


def test_a_round_goes_betting_closed_dealing_card_by_card_result_settled_then_the_next_opens():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "betting")

    steps = drive(table, clock, lambda: Round.objects.filter(table=table).count() == 2)

    dealt = steps.count("dealt")
    assert 4 <= dealt <= 6
    assert steps == ["closed", "dealing", *["dealt"] * dealt, "result", "settled", "opened"]
    first = Round.objects.get(table=table, number=1)
    assert first.state == "settled"
    assert [c["position"] for c in first.cards] == list(range(1, dealt + 1))
    assert [c["hand"] for c in first.cards[:4]] == ["player", "banker", "player", "banker"]
    result = engine.RoundResult.from_cards(
        [engine.Card.parse(c["card"]) for c in first.cards if c["hand"] == "player"],
        [engine.Card.parse(c["card"]) for c in first.cards if c["hand"] == "banker"],
    )
    assert (first.player_total, first.banker_total, first.winner) == (
        result.player_total,
        result.banker_total,
        result.winner,
    )
    assert first.flags == result.flags()


def test_the_cards_dealt_are_the_next_cards_of_the_committed_shoe_in_order():
    table = fast_table()
    clock = Clock()
    drive(table, clock, lambda: Round.objects.filter(table=table, state="settled").count() == 3)

    shoe = Shoe.objects.get(table=table)
    order = [str(c) for c in engine.shuffled_cards(shoe.server_seed, table.variant.decks)]
    state = engine.new_shoe(table.variant.decks, seed_hex=shoe.server_seed)
    start = state.position
    dealt = [c["card"] for r in Round.objects.filter(table=table, state="settled").order_by("number") for c in r.cards]
    assert dealt == order[start : start + len(dealt)]


def test_each_transition_repeated_with_the_same_view_does_nothing_the_second_time():
    table = fast_table()
    clock = Clock()
    assert transitions.shoe_replace(table_id=table.pk, now=clock.now) is not None
    assert transitions.shoe_replace(table_id=table.pk, now=clock.now) is None

    round_ = transitions.round_open(table_id=table.pk, now=clock.now)
    assert round_ is not None
    assert transitions.round_open(table_id=table.pk, now=clock.now) is None

    clock.jump_to(round_.closes_at)
    assert transitions.round_close(round_id=round_.pk, now=clock.now) is True
    assert transitions.round_close(round_id=round_.pk, now=clock.now) is False

    assert transitions.round_start_dealing(round_id=round_.pk, now=clock.now) is True
    assert transitions.round_start_dealing(round_id=round_.pk, now=clock.now) is False

    position = 1
    while True:
        entry = transitions.round_deal_card(round_id=round_.pk, position=position, now=clock.now)
        if entry is None:
            break
        assert transitions.round_deal_card(round_id=round_.pk, position=position, now=clock.now) is None
        assert len(Round.objects.get(pk=round_.pk).cards) == position
        position += 1
    shoe_state = Shoe.objects.get(table=table).state

    assert transitions.round_reveal(round_id=round_.pk, now=clock.now) is True
    assert transitions.round_reveal(round_id=round_.pk, now=clock.now) is False
    assert transitions.round_finish(round_id=round_.pk, now=clock.now) is True
    assert transitions.round_finish(round_id=round_.pk, now=clock.now) is False

    settled = Round.objects.get(pk=round_.pk)
    assert settled.state == "settled"
    assert len(settled.cards) == position - 1
    assert Shoe.objects.get(table=table).state == shoe_state


def test_table_advance_run_twice_at_the_same_moment_does_one_step():
    table = fast_table()
    clock = Clock()
    drive_to_state(table, clock, "betting")
    clock.jump_to(latest_round(table).closes_at)

    assert ticker.table_step(table_id=table.pk, now=clock.now) == "closed"
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "dealing"
    assert ticker.table_step(table_id=table.pk, now=clock.now) == "dealt"
    # the next card is due deal_interval_ms later, not now: a duplicate tick deals nothing
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert len(latest_round(table).cards) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_runners_on_one_table_perform_every_step_exactly_once():
    table = fast_table(deal_interval_ms=0)
    player = make_player("carol", "100.00")
    clock = Clock()
    drive_to_state(table, clock, "betting")
    round_ = latest_round(table)
    place(player, round_.pk, ("player", "10.00"))
    clock.jump_to(round_.closes_at + timedelta(milliseconds=1))

    performed: list[str] = []
    lock = threading.Lock()

    def runner(barrier: threading.Barrier) -> None:
        try:
            barrier.wait()
            for _ in range(40):
                step = ticker.table_step(table_id=table.pk, now=clock.now)
                if step is not None:
                    with lock:
                        performed.append(step)
        finally:
            connection.close()

    for _ in range(3):  # three rounds, each raced by four runners
        barrier = threading.Barrier(4)
        threads = [threading.Thread(target=runner, args=(barrier,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        clock.jump_to(Table.objects.get(pk=table.pk).next_action_at)
        clock.advance(1.5)

    counts = Counter(performed)
    settled = Round.objects.filter(table=table, state="settled")
    assert counts["settled"] == settled.count() >= 2
    assert counts["result"] == counts["settled"]
    assert counts["dealt"] == sum(len(r.cards) for r in settled) + sum(
        len(r.cards) for r in Round.objects.filter(table=table).exclude(state="settled")
    )
    bet = round_.bets.get()
    assert bet.status != "open"
    assert balance_of(player) == Decimal("90.00") + bet.payout


def test_confirmed_bets_are_settled_with_the_round_and_paid_once():
    table = fast_table()
    alice, bob = make_player("alice", "500.00"), make_player("bob", "500.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"), ("tie", "5.00"))
    place(bob, round_.pk, ("banker", "25.00"))

    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "settled")
    assert transitions.round_finish(round_id=round_.pk) is False  # a repeat pays nothing

    settled = Round.objects.get(pk=round_.pk)
    result = engine.RoundResult.from_cards(
        [engine.Card.parse(c["card"]) for c in settled.cards if c["hand"] == "player"],
        [engine.Card.parse(c["card"]) for c in settled.cards if c["hand"] == "banker"],
    )
    expected_alice = engine.settle("player", Decimal("10.00"), result) + engine.settle("tie", Decimal("5.00"), result)
    expected_bob = engine.settle("banker", Decimal("25.00"), result)
    assert balance_of(alice) == Decimal("485.00") + expected_alice
    assert balance_of(bob) == Decimal("475.00") + expected_bob
    assert all(b.status in {"won", "lost", "push"} for b in settled.bets.all())


def test_a_closed_table_finishes_its_live_round_and_opens_no_more():
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)

    drive(table, clock, lambda: Round.objects.get(pk=round_.pk).state == "settled")
    clock.advance(60)
    assert ticker.table_step(table_id=table.pk, now=clock.now) is None
    assert Round.objects.filter(table=table).count() == 1
    assert due_table_ids(now=clock.now) == []


@pytest.mark.slow  # about 60 rounds through the services: seconds, tens of them on a busy machine
def test_a_whole_8_deck_shoe_is_played_to_the_cut_card_then_reshuffled_with_a_new_commitment_and_burn():
    table = fast_table()
    assert table.variant.decks == 8
    clock = Clock()

    drive(table, clock, lambda: Shoe.objects.filter(table=table).count() == 2, max_steps=3000)
    drive_to_state(table, clock, "betting")

    first, second = Shoe.objects.filter(table=table).order_by("number")
    played = list(Round.objects.filter(shoe=first).order_by("number"))
    assert [r.number for r in played] == list(range(1, len(played) + 1))
    assert len(played) > 60
    assert all(r.state == "settled" for r in played)
    assert [r.is_last_of_shoe for r in played] == [False] * (len(played) - 1) + [True]

    # the cut card came out in the last round, and only then
    state = engine.ShoeState.from_dict(first.state)
    assert state.is_last_round
    cards_left = state.cards_left
    assert 0 < cards_left <= table.variant.cut_max

    # the revealed seed proves the shoe: commitment, burn, and every card dealt in order
    assert first.finished_at is not None
    assert first.revealed_seed == first.server_seed
    dealt = [c["card"] for r in played for c in r.cards]
    fresh = engine.new_shoe(8, seed_hex=first.server_seed)
    assert str(fresh.burn_card) == first.burn_card
    assert fresh.burn_count == first.burn_count
    burn_value = engine.Card.parse(first.burn_card).value
    assert first.burn_count == (burn_value or 10)
    order = [str(c) for c in engine.shuffled_cards(first.server_seed, 8)]
    assert dealt == order[fresh.position : fresh.position + len(dealt)]
    assert engine.verify_shoe(first.server_seed, first.commitment, order)

    # a new shoe: new seed and commitment, its own burn, round numbers from 1 again
    assert second.number == 2
    assert second.finished_at is None
    assert second.commitment != first.commitment
    assert second.server_seed != first.server_seed
    assert second.commitment == engine.commitment(second.server_seed)
    assert second.burn_count == (engine.Card.parse(second.burn_card).value or 10)
    assert latest_round(table).shoe_id == second.pk
    assert latest_round(table).number == 1
