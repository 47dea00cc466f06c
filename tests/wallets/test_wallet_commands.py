"""Operator commands: create_player, wallet_deposit and reconcile, through the same services."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command, execute_from_command_line
from django.db import connection

from wallets.models import LedgerTransaction, Wallet


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def test_create_player_makes_a_user_who_can_log_in_with_a_funded_wallet(db):
    output = run(
        "create_player", "--reason", "test account", "zoe", "--password", "secret-pass-1", "--deposit", "1500.00"
    )
    user = get_user_model().objects.get(username="zoe")
    assert user.check_password("secret-pass-1")
    assert Wallet.objects.get(user=user).balance == Decimal("1500.00")
    assert LedgerTransaction.objects.filter(kind="deposit", entries__wallet__user=user).count() == 1
    assert "1,500.00" in output


def test_create_player_refuses_an_existing_name_and_a_bad_deposit_without_leaving_anything(db):
    run("create_player", "--reason", "test account", "zoe", "--password", "secret-pass-1")
    with pytest.raises(CommandError, match="already exists"):
        run("create_player", "--reason", "test account", "zoe", "--password", "x")
    with pytest.raises(CommandError, match="invalid_amount"):
        run("create_player", "--reason", "test account", "yan", "--password", "secret-pass-1", "--deposit", "-5")
    assert not get_user_model().objects.filter(username="yan").exists()


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [
        ("zoe", "short", "This password is too short"),
        ("zoe", "12345678901", "This password is entirely numeric"),
        ("zoe", "password123", "This password is too common"),
        ("zoezoezoe1", "zoezoezoe1", "too similar to the username"),
        ("no spaces allowed", "secret-pass-1", "username"),
        ("x" * 151, "secret-pass-1", "username"),
    ],
)
def test_create_player_applies_the_sign_up_pages_username_and_password_rules(db, name, password, message):
    with pytest.raises(CommandError, match=message):
        run("create_player", "--reason", "test account", name, "--password", password)
    assert not get_user_model().objects.exists()


def test_wallet_deposit_credits_a_player_with_the_reason_recorded(db):
    run("create_player", "--reason", "test account", "zoe", "--password", "secret-pass-1")
    run("wallet_deposit", "zoe", "20.25", "--reason", "load test")
    txn = LedgerTransaction.objects.get(kind="deposit")
    assert txn.reason == "load test"
    assert Wallet.objects.get(user__username="zoe").balance == Decimal("20.25")
    with pytest.raises(CommandError, match="no user"):
        run("wallet_deposit", "nobody", "1.00", "--reason", "x")
    with pytest.raises(CommandError, match="invalid_amount"):
        run("wallet_deposit", "zoe", "1.005", "--reason", "x")


def test_reconcile_passes_on_a_sound_ledger_and_fails_when_a_balance_is_tampered_with(db):
    run("create_player", "--reason", "test account", "zoe", "--password", "secret-pass-1", "--deposit", "100.00")
    run("create_player", "--reason", "test account", "yan", "--password", "secret-pass-1", "--deposit", "50.00")
    assert "ledger reconciles" in run("reconcile")

    with connection.cursor() as cursor:
        cursor.execute("UPDATE wallets_wallet SET balance = balance + 1 WHERE user_id IS NOT NULL")
    with pytest.raises(CommandError) as failed:
        run("reconcile")
    assert failed.value.returncode == 1


def test_reconcile_exits_non_zero_from_the_command_line_on_a_mismatch(db):
    run("create_player", "--reason", "test account", "zoe", "--password", "secret-pass-1", "--deposit", "100.00")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE wallets_wallet SET balance = 7 WHERE user_id IS NOT NULL")
    with pytest.raises(SystemExit) as exited:
        execute_from_command_line(["manage.py", "reconcile"])
    assert exited.value.code == 1
