"""Money moves only through wallets.services, into a balanced, append-only ledger."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.utils import DatabaseError

from tests.factories import make_user
from wallets import selectors, services
from wallets.models import LedgerEntry, LedgerTransaction, Wallet


def balance_of(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def test_a_deposit_is_one_transaction_whose_player_and_house_entries_sum_to_zero(make_player):
    alice = make_player("alice")
    txn = services.wallet_deposit(user=alice, amount="250.50", reason="welcome", reference="promo:1")

    assert txn.kind == LedgerTransaction.Kind.DEPOSIT
    assert txn.reference == "promo:1"
    entries = {e.wallet.kind: e for e in txn.entries.select_related("wallet")}
    assert entries["player"].amount == Decimal("250.50")
    assert entries["player"].balance_after == Decimal("250.50")
    assert entries["house"].amount == Decimal("-250.50")
    assert entries["house"].balance_after is None
    assert balance_of(alice) == Decimal("250.50")
    assert selectors.house_balance() == Decimal("-250.50")
    assert selectors.ledger_reconciliation().ok


def test_the_house_row_is_never_updated_its_balance_is_derived_from_the_ledger(make_player):
    alice = make_player("alice", "100.00")
    services.wallet_withdraw(user=alice, amount="30.00", reason="cash out")
    assert services.house_wallet().balance == Decimal("0.00")
    assert selectors.house_balance() == Decimal("-70.00")
    assert balance_of(alice) == Decimal("70.00")


def test_a_withdrawal_larger_than_the_balance_is_refused_and_changes_nothing(make_player):
    alice = make_player("alice", "10.00")
    before = LedgerEntry.objects.count()
    with pytest.raises(services.InsufficientFunds) as refused:
        services.wallet_withdraw(user=alice, amount="10.01", reason="too much")
    assert refused.value.code == "insufficient_funds"
    assert balance_of(alice) == Decimal("10.00")
    assert LedgerEntry.objects.count() == before


@pytest.mark.parametrize(
    "amount",
    ["0", "0.00", "-1", "1.001", "NaN", "Infinity", "1e3", " 5", "", "12345678901234567890", 1.5, True, None],
)
def test_amounts_that_are_not_positive_cents_are_refused(make_player, amount):
    alice = make_player("alice")
    with pytest.raises(services.InvalidAmount):
        services.wallet_deposit(user=alice, amount=amount, reason="bad")
    assert LedgerEntry.objects.count() == 0


def test_a_deposit_past_the_largest_balance_a_wallet_holds_is_refused_cleanly(make_player):
    alice = make_player("alice", "999999999999.00")
    with pytest.raises(services.BalanceLimit):
        services.wallet_deposit(user=alice, amount="1.00", reason="overflow")
    assert balance_of(alice) == Decimal("999999999999.00")


def test_an_operator_adjustment_can_debit_or_credit(make_player):
    operator = make_user("operator", is_staff=True)
    alice = make_player("alice", "50.00")
    services.wallet_adjust(user=alice, amount=Decimal("-20.00"), reason="duplicate deposit", actor=operator)
    txn = services.wallet_adjust(user=alice, amount=Decimal("5.00"), reason="goodwill", actor=operator)
    assert txn.actor == operator
    assert txn.reference == f"operator:{operator.pk}"
    assert balance_of(alice) == Decimal("35.00")


def test_crediting_many_players_writes_one_balanced_transaction_for_all(make_player):
    alice, bob = make_player("alice", "1.00"), make_player("bob")
    carol = make_user("carol")  # no wallet yet: created on the way
    credits = services.wallets_credit_many(
        credits={alice.pk: Decimal("10.00"), bob.pk: Decimal("0.50"), carol.pk: Decimal("7.25")},
        kind=LedgerTransaction.Kind.PAYOUT,
        reference="round:1",
    )
    assert {uid: c.balance for uid, c in credits.items()} == {
        alice.pk: Decimal("11.00"),
        bob.pk: Decimal("0.50"),
        carol.pk: Decimal("7.25"),
    }
    [txn_id] = {c.transaction_id for c in credits.values()}
    txn = LedgerTransaction.objects.get(pk=txn_id)
    assert (txn.kind, txn.reference) == ("payout", "round:1")
    legs = {(e.wallet.user_id, e.amount, e.balance_after) for e in txn.entries.select_related("wallet")}
    assert legs == {
        (alice.pk, Decimal("10.00"), balance_of(alice)),
        (bob.pk, Decimal("0.50"), balance_of(bob)),
        (carol.pk, Decimal("7.25"), balance_of(carol)),
        (None, Decimal("-17.75"), None),
    }
    assert selectors.ledger_reconciliation().ok


def test_crediting_many_writes_the_transaction_under_a_reserved_id(make_player):
    alice = make_player("alice", "1.00")
    reserved = services.ledger_transaction_reserve()
    assert not LedgerTransaction.objects.filter(pk=reserved).exists()
    credits = services.wallets_credit_many(
        credits={alice.pk: Decimal("2.00")}, kind="refund", reference="round:9", transaction_id=reserved
    )
    assert credits[alice.pk].transaction_id == reserved
    assert LedgerTransaction.objects.get(pk=reserved).entries.count() == 2
    assert selectors.ledger_reconciliation().ok


def _raw(sql: str, params: list) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_the_database_refuses_an_entry_whose_wallet_or_transaction_does_not_exist(make_player):
    alice = make_player("alice", "5.00")
    wallet = Wallet.objects.get(user=alice)
    house = services.house_wallet()
    txn = LedgerTransaction.objects.create(kind="adjustment", reference="test")
    legs = (
        "INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, amount, created_at)"
        " VALUES (%s, %s, 1, now()), (%s, %s, -1, now())"
    )
    with pytest.raises(IntegrityError, match="wallet 999999, which does not exist"):
        _raw(legs, [txn.pk, 999999, txn.pk, house.pk])
    with pytest.raises(IntegrityError, match="transaction 999999, which does not exist"):
        _raw(legs, [999999, wallet.pk, 999999, house.pk])
    before = LedgerEntry.objects.count()
    _raw(legs, [txn.pk, wallet.pk, txn.pk, house.pk])  # the same legs, well addressed, are taken
    assert LedgerEntry.objects.count() == before + 2


def test_the_database_refuses_to_delete_or_renumber_a_wallet_with_entries(make_player):
    alice = make_player("alice", "5.00")
    wallet = Wallet.objects.get(user=alice)
    with pytest.raises(IntegrityError, match=f"wallet {wallet.pk} has ledger entries: DELETE refused"):
        _raw("DELETE FROM wallets_wallet WHERE id = %s", [wallet.pk])
    with pytest.raises(IntegrityError, match=f"wallet {wallet.pk} has ledger entries: UPDATE refused"):
        _raw("UPDATE wallets_wallet SET id = 999999 WHERE id = %s", [wallet.pk])
    _raw("UPDATE wallets_wallet SET currency = currency WHERE id = %s", [wallet.pk])  # other columns: allowed
    empty = services.wallet_for(user=make_user("dave"))
    _raw("DELETE FROM wallets_wallet WHERE id = %s", [empty.pk])  # a wallet without entries can go
    assert not Wallet.objects.filter(pk=empty.pk).exists()


def test_ledger_entries_cannot_be_updated_or_deleted(make_player):
    alice = make_player("alice", "5.00")
    entry = LedgerEntry.objects.filter(wallet__user=alice).get()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=Decimal("500.00"))
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerTransaction.objects.filter(pk=entry.transaction_id).update(reason="rewritten")


def test_a_transaction_whose_entries_do_not_sum_to_zero_is_refused_by_the_database(make_player):
    alice = make_player("alice")
    wallet = Wallet.objects.get(user=alice)
    txn = LedgerTransaction.objects.create(kind=LedgerTransaction.Kind.ADJUSTMENT, reference="forged")
    with pytest.raises(DatabaseError, match="does not balance"), transaction.atomic():
        LedgerEntry.objects.create(transaction=txn, wallet=wallet, amount=Decimal("1000.00"))
    house = services.house_wallet()
    with pytest.raises(DatabaseError, match="does not balance"), transaction.atomic():
        LedgerEntry.objects.bulk_create(  # one statement, both legs, but they do not cancel out
            [
                LedgerEntry(transaction=txn, wallet=wallet, amount=Decimal("1000.00")),
                LedgerEntry(transaction=txn, wallet=house, amount=Decimal("-999.99")),
            ]
        )
    LedgerEntry.objects.bulk_create(  # a balanced pair in one statement is accepted
        [
            LedgerEntry(transaction=txn, wallet=wallet, amount=Decimal("1.00"), balance_after=Decimal("1.00")),
            LedgerEntry(transaction=txn, wallet=house, amount=Decimal("-1.00")),
        ]
    )
    with pytest.raises(DatabaseError, match="does not balance"), transaction.atomic():
        LedgerEntry.objects.create(transaction=txn, wallet=house, amount=Decimal("-5.00"))  # unbalances it later


def test_the_database_refuses_a_negative_player_balance(make_player):
    alice = make_player("alice", "1.00")
    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.filter(user=alice).update(balance=Decimal("-0.01"))


def test_the_ledger_of_a_player_lists_only_their_entries_newest_first(make_player):
    alice, bob = make_player("alice", "1.00"), make_player("bob", "2.00")
    services.wallet_deposit(user=alice, amount="3.00", reason="again")
    entries = list(selectors.ledger_entries(user=alice))
    assert [e.amount for e in entries] == [Decimal("3.00"), Decimal("1.00")]
    assert all(e.wallet.user_id == alice.pk for e in entries)
    assert selectors.wallet_balance(user=bob)["balance"] == Decimal("2.00")
