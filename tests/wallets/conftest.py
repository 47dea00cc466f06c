"""Fixtures for money tests: players funded through wallets.services, never by writing rows."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.factories import make_user
from wallets import services


@pytest.fixture
def make_player(db):
    """``make_player("bob", "100.00")`` → a user whose wallet holds that much (deposited through the ledger)."""

    def make(username: str = "alice", balance: str | Decimal | None = None):
        user = make_user(username=username)
        services.wallet_for(user=user)
        if balance is not None and Decimal(balance) > 0:
            services.wallet_deposit(user=user, amount=Decimal(balance), reason="test funding")
        return user

    return make
