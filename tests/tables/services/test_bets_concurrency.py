"""Races on real connections: parallel confirms, repeated settlement, a bet racing the close."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection, connections, transaction

from baccarat_site.errors import DomainError
from tables import events
from tables.models import Bet, BetOutcome, Round
from tables.selectors.bets import casino_reconciliation
from tables.services import placement, settlement
from tests.factories import make_round, make_table
from wallets import selectors as wallet_selectors
from wallets import services as wallet_services
from wallets.models import LedgerTransaction, Wallet

pytestmark = pytest.mark.django_db(transaction=True)

# Enough threads to race, few enough for a PostgreSQL with max_connections = 100 shared with other runs.
WORKERS = 24


def run_together(count: int, task: Callable[[int], Any], workers: int = WORKERS) -> list[Any]:
    """Run ``task(i)`` for i in range(count) on real threads (each with its own connection), all released at once."""
    go = threading.Event()

    def call(i: int) -> Any:
        go.wait()
        try:
            return task(i)
        except DomainError as exc:
            return exc
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=min(workers, count)) as pool:
        futures = [pool.submit(call, i) for i in range(count)]
        time.sleep(0.05)
        go.set()
        return [f.result(timeout=60) for f in futures]


def confirm(user, round_id: int, *bets: tuple[str, str], key: str | None = None) -> dict:
    return placement.bet_place(
        user=user,
        round_id=round_id,
        mode="traditional",
        bets=[{"type": t, "amount": a} for t, a in bets],
        idempotency_key=key or str(uuid.uuid4()),
    ).as_body()


def test_a_hundred_parallel_confirms_from_a_player_who_can_afford_ten_succeed_exactly_ten_times(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    alice = player("alice", "100.00")
    round_ = make_round(make_table("Race"), closes_in=120)

    results = run_together(100, lambda i: confirm(alice, round_.pk, ("player", "10.00")))

    accepted = [r for r in results if isinstance(r, dict)]
    refusals = [r for r in results if isinstance(r, DomainError)]
    assert len(accepted) == 10
    assert {r.code for r in refusals} == {"insufficient_funds"}
    assert len(refusals) == 90
    assert sorted(Decimal(r["balance"]) for r in accepted) == [Decimal(n) for n in range(0, 100, 10)]
    assert Wallet.objects.get(user=alice).balance == Decimal("0.00")
    assert Bet.objects.count() == 10
    assert casino_reconciliation().ok


def test_parallel_confirms_from_many_players_on_one_round_all_land(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    players = [player(f"p{i}", "50.00") for i in range(40)]
    round_ = make_round(make_table("Crowd"), closes_in=120)

    results = run_together(40, lambda i: confirm(players[i], round_.pk, ("banker", "20.00"), ("player", "5.00")))

    assert all(isinstance(r, dict) for r in results), [r for r in results if not isinstance(r, dict)]
    assert Bet.objects.filter(round=round_).count() == 80
    assert casino_reconciliation().ok


def test_the_same_key_sent_twice_at_once_places_one_batch_and_answers_both_alike(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    alice = player("alice", "100.00")
    round_ = make_round(make_table("Retry"), closes_in=120)

    results = run_together(8, lambda i: confirm(alice, round_.pk, ("tie", "5.00"), key="same-key"))

    assert all(r == results[0] for r in results), results
    assert Bet.objects.count() == 1
    assert Wallet.objects.get(user=alice).balance == Decimal("95.00")


def test_concurrent_and_repeated_settlement_pays_exactly_once(player, deal, monkeypatch):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    players = [player(f"p{i}", "100.00") for i in range(10)]
    round_ = make_round(make_table("Settle"), closes_in=120)
    for user in players:
        confirm(user, round_.pk, ("player", "10.00"), ("player_natural", "2.00"))
    deal(round_, "9H 2D KC 3S")  # a Player natural 9

    results = run_together(12, lambda i: settlement.round_settle(round_id=round_.pk))

    assert sorted(results) == [0] * 11 + [20]
    assert settlement.round_settle(round_id=round_.pk) == 0
    for user in players:
        assert Wallet.objects.get(user=user).balance == Decimal("100.00") - 12 + 20 + 9
    [payout] = LedgerTransaction.objects.filter(kind="payout")  # the round's one transaction
    assert payout.entries.count() == 10 + 1  # a leg per player and the house's
    assert casino_reconciliation().ok


def test_settle_and_cancel_racing_each_other_move_the_money_once(player, deal, monkeypatch):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    monkeypatch.setattr("tables.events.table_event", lambda *a, **k: None)
    alice = player("alice", "100.00")
    round_ = make_round(make_table("Both"), closes_in=120)
    confirm(alice, round_.pk, ("player", "10.00"))
    deal(round_, "9H 2D KC 3S")

    def task(i: int) -> int:
        if i % 2:
            return settlement.round_refund(round_id=round_.pk, reason="race")
        return settlement.round_settle(round_id=round_.pk)

    results = run_together(10, task)

    assert sorted(results) == [0] * 9 + [1]
    state = Round.objects.get(pk=round_.pk).state
    expected = {"settled": Decimal("110.00"), "cancelled": Decimal("100.00")}[state]
    assert Wallet.objects.get(user=alice).balance == expected
    assert LedgerTransaction.objects.filter(kind__in=["payout", "refund"]).count() == 1
    assert casino_reconciliation().ok


def test_a_bet_in_flight_holds_the_close_back_and_is_refunded_with_the_round(player, monkeypatch):
    """The close waits for bets already inside their transaction; bets after it are refused."""
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    monkeypatch.setattr("tables.events.table_event", lambda *a, **k: None)
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    round_ = make_round(make_table("Close race"), closes_in=120)

    inside, release = threading.Event(), threading.Event()
    real_post = placement.wallet_services.wallet_post

    def slow_post(**kwargs: Any) -> int:
        txn = real_post(**kwargs)
        inside.set()
        assert release.wait(10)
        return txn

    monkeypatch.setattr(placement.wallet_services, "wallet_post", slow_post)
    closed = threading.Event()

    def close_round() -> None:
        try:
            with transaction.atomic():
                assert Round.objects.filter(pk=round_.pk, state="betting").update(state="closed") == 1
            closed.set()
        finally:
            connections.close_all()

    def bet() -> dict:
        try:
            return confirm(alice, round_.pk, ("player", "10.00"))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        in_flight = pool.submit(bet)
        assert inside.wait(10)
        closing = pool.submit(close_round)
        time.sleep(0.3)
        assert not closed.is_set(), "the close must wait for the bet in flight"
        release.set()
        assert in_flight.result(10)["balance"] == "90.00"
        closing.result(10)
    assert closed.is_set()

    monkeypatch.setattr(placement.wallet_services, "wallet_post", real_post)
    with pytest.raises(DomainError) as late:
        confirm(bob, round_.pk, ("player", "10.00"))
    assert late.value.code == "betting_closed"

    assert settlement.round_refund(round_id=round_.pk, reason="fault") == 1
    assert Wallet.objects.get(user=alice).balance == Decimal("100.00")
    assert Wallet.objects.get(user=bob).balance == Decimal("100.00")
    assert casino_reconciliation().ok
    connection.close()


def test_bets_racing_a_cancel_are_either_refused_or_refunded(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    monkeypatch.setattr("tables.events.table_event", lambda *a, **k: None)
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    players = [player(f"p{i}", "30.00") for i in range(20)]
    round_ = make_round(make_table("Cancel race"), closes_in=120)

    def task(i: int) -> Any:
        if i == 10:
            return ("cancel", settlement.round_refund(round_id=round_.pk, reason="fault"))
        return confirm(players[i if i < 10 else i - 1], round_.pk, ("player", "10.00"))

    results = run_together(21, task)

    refunded = next(r[1] for r in results if isinstance(r, tuple))
    accepted = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, DomainError)]
    assert {r.code for r in refused} <= {"betting_closed"}
    assert refunded == len(accepted) == Bet.objects.count()
    assert not Bet.objects.exclude(outcome__status="refunded").exists()
    for user in players:
        assert Wallet.objects.get(user=user).balance == Decimal("30.00")
    assert casino_reconciliation().ok


def test_players_never_wait_for_each_other_on_the_round_or_the_house(player, monkeypatch):
    """While one player's confirm has inserted its bets and not committed, another player's confirm of the same
    kinds of bet on the same round commits: the round is only share-locked, the house row is not touched, and
    placement writes no row that two players share (a bet's outcome is written by settlement)."""
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    round_ = make_round(make_table("No hot row"), closes_in=120)
    bets = (("player", "10.00"), ("tie", "1.00"), ("banker", "5.00"))
    inside, release = threading.Event(), threading.Event()

    def alice_holds() -> dict:
        try:
            with transaction.atomic():  # her confirm's transaction, held open after its last statement
                placed = confirm(alice, round_.pk, *bets)
                inside.set()
                assert release.wait(10)
            return placed
        finally:
            connections.close_all()

    def bob_confirms() -> dict:
        try:
            return confirm(bob, round_.pk, *reversed(bets))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        held = pool.submit(alice_holds)
        assert inside.wait(10)
        with connection.cursor() as cursor:  # alice's bets are in, not committed
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in%%'"
            )
            assert cursor.fetchone()[0] >= 1
        started = time.monotonic()
        assert pool.submit(bob_confirms).result(5)["balance"] == "84.00"
        assert time.monotonic() - started < 2, "bob waited for alice"
        assert set(Bet.objects.filter(round=round_).values_list("user_id", flat=True)) == {bob.pk}  # hers unseen
        release.set()
        assert held.result(10)["balance"] == "84.00"

    assert Bet.objects.filter(round=round_).count() == 6
    assert wallet_services.house_wallet().balance == Decimal("0.00")  # derived from the ledger, never updated
    assert wallet_selectors.house_balance() == Decimal("-168.00")  # 200.00 given out, 32.00 staked back
    assert casino_reconciliation().ok


def test_placement_writes_no_outcome_and_refused_batches_leave_nothing(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    alice, bob = player("alice", "0.50"), player("bob", "100.00")
    round_ = make_round(make_table("Refused"), closes_in=120)
    with pytest.raises(DomainError) as poor:
        confirm(alice, round_.pk, ("tie", "1.00"))
    with pytest.raises(DomainError) as over:
        confirm(bob, round_.pk, ("tie", "99999.00"))
    assert (poor.value.code, over.value.code) == ("insufficient_funds", "above_max")

    confirm(bob, round_.pk, ("tie", "1.00"), ("player", "5.00"))
    confirm(bob, round_.pk, ("tie", "1.00"))
    assert not BetOutcome.objects.exists()
    assert Bet.objects.count() == 3
    assert {b.status for b in Bet.objects.all()} == {"open"}
    assert Wallet.objects.get(user=bob).balance == Decimal("93.00")
    assert casino_reconciliation().ok


def test_a_round_that_does_not_take_bets_refuses_them(player):
    alice = player("alice", "100.00")
    round_ = make_round(make_table("Closed"), state=Round.State.CLOSED)
    with pytest.raises(DomainError) as refused:
        confirm(alice, round_.pk, ("player", "10.00"))
    assert refused.value.code == "betting_closed"
    with pytest.raises(DomainError) as missing:
        confirm(alice, 10**9, ("player", "10.00"))
    assert missing.value.code == "round_not_found"
    assert not Bet.objects.exists()
