"""A new player's starting play money and the hourly refill: through the ledger, once, under the wallet's lock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest
from django.db import connections

from baccarat_site.accounts.selectors import refill_status
from baccarat_site.accounts.services import player_refill
from baccarat_site.errors import DomainError
from tables.models import Table
from tables.selectors.tables import table_minimum_stake
from tests.factories import make_table, make_user, make_variant
from wallets import selectors, services
from wallets.models import LedgerEntry, LedgerTransaction, Wallet

MAIN = ("player", "banker", "tie")


def limits(minimum: str) -> dict[str, dict[str, str]]:
    return {bet: {"min": minimum, "max": "5000.00"} for bet in MAIN}


def balance_of(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def sound_ledger() -> None:
    report = selectors.ledger_reconciliation()
    assert report.ok, report.problems


def spend_down_to(user, amount: str) -> None:
    """Take the player's balance down to ``amount`` (an operator's withdrawal: as if lost at the tables)."""
    services.wallet_withdraw(user=user, amount=balance_of(user) - Decimal(amount), reason="lost at the tables")


def run_together(count: int, task: Callable[[int], Any]) -> list[Any]:
    """``task(i)`` on ``count`` real threads (each with its own database connection), released at once."""
    barrier = threading.Barrier(count)

    def call(i: int) -> Any:
        barrier.wait()
        try:
            return task(i)
        except DomainError as error:
            return error
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return [future.result(timeout=60) for future in [pool.submit(call, i) for i in range(count)]]


@pytest.fixture
def newcomer(db):
    """A player who has just signed up: the starting money through the ledger, and a table with a 10.00 minimum."""
    make_table("Ten", make_variant("Ten minimum", limits=limits("10.00")))
    user = make_user("nina")
    services.wallet_open_player(user=user)
    return user


# ── the starting money ──────────────────────────────────────────────────────


@pytest.mark.django_db
def test_a_new_player_gets_the_starting_balance_once_as_a_deposit_from_the_house():
    user = make_user("nina")
    first = services.wallet_open_player(user=user)
    again = services.wallet_open_player(user=user)

    assert again.pk == first.pk
    assert LedgerTransaction.objects.count() == 1
    assert first.kind == LedgerTransaction.Kind.DEPOSIT
    assert first.reference == f"signup:{user.pk}"
    assert first.reason == "Starting play money"
    entries = {e.wallet.kind: e.amount for e in first.entries.select_related("wallet")}
    assert entries == {"player": Decimal("1000.00"), "house": Decimal("-1000.00")}
    assert balance_of(user) == Decimal("1000.00")
    assert selectors.house_balance() == Decimal("-1000.00")
    sound_ledger()


@pytest.mark.django_db
def test_the_starting_balance_is_a_setting_and_is_given_once_even_after_the_money_is_spent(settings):
    settings.STARTING_BALANCE = "250.00"
    user = make_user("nina")
    services.wallet_open_player(user=user)
    spend_down_to(user, "0.00")
    services.wallet_open_player(user=user)

    assert balance_of(user) == Decimal("0.00")
    assert LedgerTransaction.objects.filter(reference=f"signup:{user.pk}").count() == 1
    assert LedgerEntry.objects.get(transaction__reference=f"signup:{user.pk}", wallet__kind="player").amount == Decimal(
        "250.00"
    )
    sound_ledger()


@pytest.mark.django_db(transaction=True)
def test_two_openings_at_once_credit_the_starting_money_once():
    user = make_user("nina")
    results = run_together(2, lambda i: services.wallet_open_player(user=user))

    assert results[0].pk == results[1].pk
    assert LedgerTransaction.objects.count() == 1
    assert balance_of(user) == Decimal("1000.00")
    sound_ledger()


# ── the refill ──────────────────────────────────────────────────────────────


def test_a_player_who_can_still_bet_is_refused_a_refill_and_nothing_is_written(newcomer):
    spend_down_to(newcomer, "10.00")  # exactly the smallest minimum: still a bet
    before = LedgerEntry.objects.count()

    with pytest.raises(services.RefillNotNeeded) as refused:
        player_refill(user=newcomer, minimum_stake=table_minimum_stake())

    assert refused.value.code == "refill_not_needed"
    assert refused.value.status == 409
    assert "10.00" in refused.value.detail
    assert LedgerEntry.objects.count() == before
    assert balance_of(newcomer) == Decimal("10.00")


def test_a_balance_below_the_smallest_table_minimum_is_topped_up_to_the_starting_balance(newcomer):
    spend_down_to(newcomer, "9.99")

    txn = player_refill(user=newcomer, minimum_stake=table_minimum_stake())

    assert txn.kind == LedgerTransaction.Kind.DEPOSIT
    assert txn.reference == f"refill:{newcomer.pk}"
    assert txn.reason == "Play-money refill"
    entries = {e.wallet.kind: e for e in txn.entries.select_related("wallet")}
    assert entries["player"].amount == Decimal("990.01")
    assert entries["player"].balance_after == Decimal("1000.00")
    assert entries["house"].amount == Decimal("-990.01")
    assert balance_of(newcomer) == Decimal("1000.00")
    sound_ledger()


def test_one_refill_an_hour_says_how_long_is_left_then_allows_the_next(newcomer, clock):
    spend_down_to(newcomer, "0.00")
    player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    spend_down_to(newcomer, "3.00")

    with pytest.raises(services.RefillTooSoon) as refused:
        player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    assert refused.value.code == "refill_too_soon"
    assert refused.value.status == 409
    assert 3590 <= refused.value.retry_after <= 3600
    assert refused.value.as_dict()["retry_after"] == refused.value.retry_after
    assert "60 minutes" in refused.value.detail

    clock.move(minutes=59)
    with pytest.raises(services.RefillTooSoon) as refused:
        player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    assert 1 <= refused.value.retry_after <= 60
    assert "1 minute." in refused.value.detail
    assert balance_of(newcomer) == Decimal("3.00")

    clock.move(minutes=1)
    player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    assert balance_of(newcomer) == Decimal("1000.00")
    assert LedgerTransaction.objects.filter(reference=f"refill:{newcomer.pk}").count() == 2
    sound_ledger()


def test_the_status_the_profile_page_shows_follows_the_same_rules(newcomer, clock):
    status = refill_status(user=newcomer, minimum_stake=table_minimum_stake())
    assert (status.allowed, status.refusal, status.minimum, status.starting) == (
        False,
        "refill_not_needed",
        Decimal("10.00"),
        Decimal("1000.00"),
    )
    spend_down_to(newcomer, "5.00")
    assert refill_status(user=newcomer, minimum_stake=table_minimum_stake()).allowed
    player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    spend_down_to(newcomer, "5.00")
    clock.move(minutes=30)
    status = refill_status(user=newcomer, minimum_stake=table_minimum_stake())
    assert status.refusal == "refill_too_soon"
    assert 1790 <= status.retry_after <= 1800


def test_the_minimum_is_the_smallest_over_open_tables_only(newcomer):
    cheap = make_table("Cheap", make_variant("Two minimum", limits=limits("2.00")))
    assert table_minimum_stake() == Decimal("2.00")
    Table.objects.filter(pk=cheap.pk).update(status=Table.Status.PAUSED)
    assert table_minimum_stake() == Decimal("10.00")

    spend_down_to(newcomer, "5.00")  # below the open table's 10.00, above the paused one's 2.00
    player_refill(user=newcomer, minimum_stake=table_minimum_stake())
    assert balance_of(newcomer) == Decimal("1000.00")


def test_with_every_table_paused_the_minimum_is_still_that_of_the_tables(newcomer):
    make_variant("Unused variant", limits=limits("0.50"))  # on no table: never counts
    Table.objects.update(status=Table.Status.PAUSED)
    assert table_minimum_stake() == Decimal("10.00")
    Table.objects.all().delete()
    assert table_minimum_stake() == Decimal("0.01")  # no tables: only an empty wallet refills


@pytest.mark.django_db(transaction=True)
def test_two_refills_at_once_credit_once():
    make_table("Ten", make_variant("Ten minimum", limits=limits("10.00")))
    user = make_user("nina")
    services.wallet_open_player(user=user)
    spend_down_to(user, "1.00")

    results = run_together(2, lambda i: player_refill(user=user, minimum_stake=table_minimum_stake()))

    credited = [r for r in results if isinstance(r, LedgerTransaction)]
    refused = [r for r in results if isinstance(r, DomainError)]
    assert len(credited) == 1
    assert [r.code for r in refused] == ["refill_not_needed"]  # the second saw the first's balance
    assert balance_of(user) == Decimal("1000.00")
    assert LedgerTransaction.objects.filter(reference=f"refill:{user.pk}").count() == 1
    sound_ledger()


@pytest.mark.django_db(transaction=True)
def test_many_refills_at_once_from_an_empty_wallet_still_credit_once():
    make_table("Ten", make_variant("Ten minimum", limits=limits("10.00")))
    user = make_user("nina")
    services.wallet_open_player(user=user)
    spend_down_to(user, "0.00")

    results = run_together(8, lambda i: player_refill(user=user, minimum_stake=table_minimum_stake()))

    assert sum(isinstance(r, LedgerTransaction) for r in results) == 1
    assert {r.code for r in results if isinstance(r, DomainError)} == {"refill_not_needed"}
    assert balance_of(user) == Decimal("1000.00")
    sound_ledger()
