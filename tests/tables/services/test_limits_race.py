"""A player's wager limit under parallel confirms: decided one at a time under the wallet lock, never passed."""

from __future__ import annotations

from decimal import Decimal

import pytest

from baccarat_site.accounts.limits import LimitReached, play_limits_set
from baccarat_site.errors import DomainError
from tables import events
from tables.models import Bet
from tests.factories import make_round, make_table
from tests.tables.services.test_bets_concurrency import confirm, run_together
from wallets.models import Wallet

pytestmark = pytest.mark.django_db(transaction=True)


def test_twenty_concurrent_confirms_cannot_together_pass_a_wager_limit(player, monkeypatch):
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    alice = player("alice", "1000.00")
    play_limits_set(user=alice, changes={"wager_day": "55.00"})
    round_ = make_round(make_table("Race"), closes_in=120)

    results = run_together(20, lambda i: confirm(alice, round_.pk, ("player", "10.00")), workers=20)

    accepted = [r for r in results if isinstance(r, dict)]
    refusals = [r for r in results if isinstance(r, DomainError)]
    assert len(accepted) == 5
    assert len(refusals) == 15
    assert all(isinstance(r, LimitReached) for r in refusals), {type(r).__name__ for r in refusals}
    assert sum(b.amount for b in Bet.objects.filter(user=alice)) == Decimal("50.00")
    assert Wallet.objects.get(user=alice).balance == Decimal("950.00")
