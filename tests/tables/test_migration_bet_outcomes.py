"""Migration 0014 moves bets' outcomes from the round stakes to one outcome per kind of bet, and back,
without losing one."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from tables import events
from tables.models import Bet, BetOutcome, Round
from tables.selectors.bets import casino_reconciliation
from tables.services import settlement
from tests.factories import make_round, make_table

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tables", "0013_table_chat")]
AFTER = [("tables", "0014_bet_outcomes")]


def migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def rows(sql: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall()


def bets_as_read() -> dict[int, tuple]:
    return {
        b.pk: (b.status, b.payout, b.settled_at, b.settlement_transaction_id)
        for b in Bet.objects.select_related("round")
    }


def test_outcomes_go_back_to_one_stake_per_amount_and_come_again_to_one_outcome_per_kind(
    player, place, deal, monkeypatch
):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    monkeypatch.setattr(events, "table_event", lambda *a, **kw: None)
    settled, cancelled, live = (make_round(make_table(f"Migrated {n}"), closes_in=60) for n in (1, 2, 3))
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, settled, ("player", "10.00"), ("banker", "10.00"), ("player_bonus", "3.33"))
    place(bob, settled, ("player", "7.77"), ("banker", "2.50"), mode="no_commission")
    place(alice, cancelled, ("tie", "1.00"))
    place(bob, live, ("banker", "5.00"))
    deal(settled, "9H 2D KC 3S")  # a Player natural
    settlement.round_settle(round_id=settled.pk)
    settlement.round_refund(round_id=cancelled.pk, reason="fault")
    read = bets_as_read()
    outcomes = set(BetOutcome.objects.values_list("round_id", "type", "mode", "status", "odds"))
    transactions = dict(Round.objects.values_list("pk", "settlement_transaction_id"))
    assert len(outcomes) == 6
    assert transactions[settled.pk]
    assert transactions[cancelled.pk]

    try:
        migrate(BEFORE)
        stakes = rows(
            "SELECT round_id, type, mode, amount, status, payout, settlement_transaction_id, settled_at"
            " FROM tables_roundstake"
        )
        assert len(stakes) == 7  # one per round, type, mode and amount
        # every bet points at the stake of its kind and amount, which holds what the bet read before
        on_bets = rows(
            "SELECT b.id, s.status, s.payout, s.settled_at, s.settlement_transaction_id FROM tables_bet b"
            " JOIN tables_roundstake s ON s.id = b.round_stake_id AND s.round_id = b.round_id AND s.type = b.type"
            " AND s.mode = b.mode AND s.amount = b.amount"
        )
        assert {bet_id: (status, payout, at, txn) for bet_id, status, payout, at, txn in on_bets} == {
            bet_id: (status, payout, at, txn) for bet_id, (status, payout, at, txn) in read.items()
        }
        # A stake whose payout is not what the engine says for its round stops the migration: nothing is guessed.
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE tables_roundstake SET payout = 99 WHERE round_id = %s AND type = 'player_bonus'", [settled.pk]
            )
        with pytest.raises(
            RuntimeError, match=r"player_bonus traditional 3\.33 is won paying 99\.00, the engine says won at 1\.00:1"
        ):
            migrate(AFTER)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE tables_roundstake SET payout = 6.66 WHERE round_id = %s AND type = 'player_bonus'",
                [settled.pk],
            )
            # A round whose cards the engine cannot read back: its odds come from its stakes' payouts.
            cursor.execute("UPDATE tables_round SET cards = '[]' WHERE id = %s", [settled.pk])
        migrate(AFTER)
    finally:
        migrate(latest())

    assert set(BetOutcome.objects.values_list("round_id", "type", "mode", "status", "odds")) == outcomes
    assert dict(Round.objects.values_list("pk", "settlement_transaction_id")) == transactions
    assert bets_as_read() == read
    assert casino_reconciliation().ok
    # the new rules hold on the migrated database
    with pytest.raises(IntegrityError, match="written once"), transaction.atomic():
        BetOutcome.objects.filter(round=settled).update(odds=Decimal(7))
    with pytest.raises(IntegrityError, match="have no outcome"), transaction.atomic():
        Round.objects.filter(pk=live.pk).update(state="cancelled")
