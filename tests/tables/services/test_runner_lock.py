"""The table's runner lock (``tables.services.ticker.runner_lock``): one runner per table at a time, whether the
connection is our own (a session advisory lock) or a transaction-mode pooler's (``DB_TRANSACTION_POOLING``: a
transaction's). tests/foundation/test_pgbouncer.py runs this file through a real PgBouncer in transaction mode,
where the session lock let a second runner in: it got the server connection the first one's lock was on."""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.db import connection

from tables.models import Round
from tables.services import ticker
from tests.tables.services.rounds_kit import balance_of, fast_table, latest_round, make_player, place

pytestmark = pytest.mark.django_db(transaction=True)


def holding_the_lock(table_id: int, check: Callable[[], None]) -> list[bool]:
    """Run ``check`` in this thread while another thread (its own connection) holds the table's runner lock;
    return what that thread got."""
    holding, done = threading.Event(), threading.Event()
    got: list[bool] = []

    def first_runner() -> None:
        try:
            with ticker.runner_lock(table_id) as held:
                got.append(held)
                holding.set()
                done.wait(10)
        finally:
            holding.set()
            connection.close()

    thread = threading.Thread(target=first_runner)
    thread.start()
    try:
        assert holding.wait(10)
        check()
    finally:
        done.set()
        thread.join(10)
    return got


def refused_then_free(table_id: int) -> None:
    def second_runner_is_refused() -> None:
        # Several tries: through a pooler each may be handed any server connection, the first runner's included.
        for _ in range(5):
            with ticker.runner_lock(table_id) as held:
                assert held is False
            assert ticker.table_run(table_id=table_id) == ([], None)

    assert holding_the_lock(table_id, second_runner_is_refused) == [True]
    with ticker.runner_lock(table_id) as held:
        assert held is True


def test_a_second_runner_is_refused_while_the_first_holds_the_table_and_gets_it_after():
    refused_then_free(fast_table("Locked").pk)


def test_the_transaction_lock_of_a_pooled_deployment_also_holds_on_a_connection_of_its_own(settings):
    settings.DB_TRANSACTION_POOLING = True
    refused_then_free(fast_table("Locked, pooled").pk)


def test_a_pooled_run_commits_every_step_it_did_and_pays_the_round(settings, clock):
    settings.DB_TRANSACTION_POOLING = True
    table = fast_table("Pooled run", betting_seconds=5, deal_interval_ms=0)
    bettor = make_player("dora", "100.00")
    steps, next_at = ticker.table_run(table_id=table.pk)
    assert steps[-1] == "opened"
    round_ = latest_round(table)
    assert round_ is not None
    assert next_at == round_.closes_at
    place(bettor, round_.pk, ("banker", "10.00"), now=clock.now())
    assert balance_of(bettor) == Decimal("90.00")

    clock.move(seconds=6)
    steps, _ = ticker.table_run(table_id=table.pk)
    assert steps[:2] == ["closed", "dealing"]
    assert "settled" in steps
    # Committed: another connection sees the round settled and the bet's money moved.
    seen: list[object] = []

    def look() -> None:
        try:
            seen.append(Round.objects.get(pk=round_.pk).state)
            seen.append(balance_of(bettor))
        finally:
            connection.close()

    thread = threading.Thread(target=look)
    thread.start()
    thread.join(10)
    assert seen[0] == Round.State.SETTLED
    assert seen[1] in {Decimal("90.00"), Decimal("100.00"), Decimal("109.50")}  # lost, tie (push), won
