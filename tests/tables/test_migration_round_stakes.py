"""Migration 0008 moves bets' outcomes to their round stakes, and back, without losing one."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tables import events
from tables.models import Bet, RoundStake
from tables.selectors.bets import casino_reconciliation
from tables.services import settlement
from tests.factories import make_round, make_table
from wallets.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("tables", "0007_known_codes")]
AFTER = [("tables", "0008_round_stakes")]


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


def test_outcomes_go_back_to_the_bets_and_come_again_to_one_stake_per_kind(player, place, deal, monkeypatch):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    monkeypatch.setattr(events, "table_event", lambda *a, **kw: None)
    settled, cancelled, live = (make_round(make_table(f"Migrated {n}"), closes_in=60) for n in (1, 2, 3))
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, settled, ("player", "10.00"), ("banker", "10.00"))
    place(bob, settled, ("player", "10.00"))
    place(alice, cancelled, ("tie", "1.00"))
    place(bob, live, ("banker", "5.00"))
    deal(settled, "9H 2D KC 3S")  # a Player natural
    settlement.round_settle(round_id=settled.pk)
    settlement.round_refund(round_id=cancelled.pk, reason="fault")
    outcomes = {b.pk: (b.status, b.payout, b.settlement_transaction_id, b.settled_at) for b in Bet.objects.all()}
    round_txn = LedgerTransaction.objects.get(kind="payout").pk

    try:
        migrate(BEFORE)
        on_bets = rows("SELECT id, status, payout, settlement_transaction_id, settled_at FROM tables_bet")
        assert {bet_id: tuple(rest) for bet_id, *rest in on_bets} == outcomes
        # A round settled before settlement was set-based paid each player in a transaction of their own.
        bob_txn = rows("SELECT id FROM wallets_ledgertransaction WHERE kind = 'deposit' LIMIT 1")[0][0]
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE tables_bet SET settlement_transaction_id = %s WHERE user_id = %s AND round_id = %s",
                [bob_txn, bob.pk, settled.pk],
            )
        migrate(AFTER)
    finally:
        migrate(latest())

    assert {b.pk: (b.status, b.payout, b.settled_at) for b in Bet.objects.all()} == {
        bet_id: (status, payout, settled_at) for bet_id, (status, payout, _txn, settled_at) in outcomes.items()
    }
    stakes = {
        (s.round_id, s.type, s.mode, s.amount): (s.status, s.payout, s.settlement_transaction_id)
        for s in RoundStake.objects.all()
    }
    assert stakes == {
        # two players' transactions for one kind: the stake keeps neither (the ledger's reference finds them)
        (settled.pk, "player", "traditional", Decimal("10.00")): ("won", Decimal("20.00"), None),
        (settled.pk, "banker", "traditional", Decimal("10.00")): ("lost", Decimal("0.00"), None),
        (cancelled.pk, "tie", "traditional", Decimal("1.00")): ("refunded", Decimal("1.00"), outcomes_txn(outcomes)),
        (live.pk, "banker", "traditional", Decimal("5.00")): ("open", None, None),
    }
    assert round_txn != outcomes_txn(outcomes)
    assert all(b.round_stake.round_id == b.round_id and b.round_stake.type == b.type for b in Bet.objects.all())
    assert rows("SELECT reloptions FROM pg_class WHERE relname = 'tables_bet'") == [(None,)]
    assert casino_reconciliation().ok


def outcomes_txn(outcomes: dict) -> int:
    """The refund's transaction: the one refunded bet's."""
    [txn] = {txn for status, _payout, txn, _at in outcomes.values() if status == "refunded"}
    return txn
