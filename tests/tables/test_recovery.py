"""A worker killed (SIGKILL) in the middle of dealing: restarted, the round ends with the same cards, paid once."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from tables import engine
from tables.models import Bet, Round, Shoe
from tests.tables.services.rounds_kit import balance_of, fast_table, latest_round, make_player, place
from tests.tables.tasks.stack import Stack, wait_for
from wallets.models import LedgerTransaction

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def test_a_worker_killed_while_dealing_is_replaced_and_the_round_finishes_with_the_same_cards_paid_once(tmp_path):
    table = fast_table("Recovery", betting_seconds=2, deal_interval_ms=600, result_seconds=30)
    alice, bob = make_player("alice", "200.00"), make_player("bob", "200.00")

    with Stack(tmp_path) as stack:
        stack.worker()
        stack.beat()
        round_ = wait_for(
            lambda: (r := latest_round(table)) is not None and r.state == "betting" and r,
            timeout=30,
            stack=stack,
            what="round 1 to open",
        )
        place(alice, round_.pk, ("player", "20.00"), ("player_pair", "5.00"))
        place(bob, round_.pk, ("banker", "40.00"), ("tie", "10.00"))

        dealing = wait_for(
            lambda: (r := Round.objects.get(pk=round_.pk)).state == "dealing" and len(r.cards) >= 2 and r,
            timeout=30,
            stack=stack,
            what="two cards dealt",
        )
        stack.kill("worker")  # SIGKILL to the worker's whole process group

        at_kill = Round.objects.get(pk=round_.pk)
        assert at_kill.state == "dealing"
        shoe_at_kill = engine.ShoeState.from_dict(Shoe.objects.get(pk=round_.shoe_id).state)
        round_start = shoe_at_kill.position - len(at_kill.cards)
        assert at_kill.cards[: len(dealing.cards)] == dealing.cards

        time.sleep(1.5)  # nobody deals while no worker runs; beat keeps queueing
        assert Round.objects.get(pk=round_.pk).cards == at_kill.cards

        stack.worker("worker2")
        settled = wait_for(
            lambda: (r := Round.objects.get(pk=round_.pk)).state == "settled" and r,
            timeout=30,
            stack=stack,
            what="the round to settle after the restart",
        )

    # the same cards: the ones already dealt, then the shoe's next ones, in the deal the rules dictate
    assert settled.cards[: len(at_kill.cards)] == at_kill.cards
    shoe = Shoe.objects.get(pk=round_.shoe_id)
    order = engine.shuffled_cards(shoe.server_seed, table.variant.decks)
    expected = engine.deal_round(iter(order[round_start:]))
    assert [(c["hand"], c["card"]) for c in settled.cards] == [(h, str(c)) for h, c in expected.cards_in_deal_order()]
    assert [c["position"] for c in settled.cards] == list(range(1, len(settled.cards) + 1))
    assert (settled.player_total, settled.banker_total, settled.winner) == (
        expected.player_total,
        expected.banker_total,
        expected.winner,
    )

    # every bet paid exactly once
    bets = Bet.objects.filter(round=settled)
    assert bets.count() == 4
    assert not bets.filter(outcome__status__isnull=True).exists()
    for user, staked in ((alice, Decimal("25.00")), (bob, Decimal("50.00"))):
        mine = bets.filter(user=user)
        for bet in mine:
            assert bet.payout == engine.settle(bet.type, bet.amount, expected, mode=bet.mode)
        paid = sum((b.payout for b in mine), Decimal("0.00"))
        assert balance_of(user) == Decimal("200.00") - staked + paid
        payouts = LedgerTransaction.objects.filter(
            kind="payout", reference=f"round:{settled.pk}", entries__wallet__user=user
        )
        assert payouts.count() == (1 if paid > 0 else 0)
