"""Property: whatever happens — deposits, bets (accepted or refused), settlements, cancellations — the sum of
every player's wallet plus the house's balance never changes, no balance goes negative, and the ledger reconciles."""

from __future__ import annotations

import contextlib
import uuid
from decimal import Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat_site.errors import DomainError
from tables import events
from tables.engine import BET_TYPES, MODES, deal_round, parse_cards
from tables.models import Round
from tables.selectors.bets import casino_reconciliation
from tables.services import placement, settlement
from tests.factories import make_round, make_table, make_user
from wallets import services as wallet_services
from wallets.models import Wallet

PLAYERS = 3
CARDS = [f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "SHDC"]
amounts = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("700.00"), places=2)

operations = st.lists(
    st.one_of(
        st.tuples(st.just("deposit"), st.integers(0, PLAYERS - 1), amounts),
        st.tuples(
            st.just("bet"),
            st.integers(0, PLAYERS - 1),
            st.lists(st.tuples(st.sampled_from(BET_TYPES), amounts), min_size=1, max_size=4),
            st.sampled_from(MODES),
        ),
        st.tuples(st.just("settle"), st.lists(st.sampled_from(CARDS), min_size=6, max_size=6)),
        st.tuples(st.just("cancel")),
    ),
    min_size=1,
    max_size=25,
)


def deal(round_: Round, cards: list[str]) -> None:
    result = deal_round(iter(parse_cards(" ".join(cards))))
    stored = [
        {"hand": hand, "card": str(card), "position": i}
        for i, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
    ]
    Round.objects.filter(pk=round_.pk).update(state="result", cards=stored)


# 30 histories against the database take seconds: `make test-fast` leaves this out, `make test` runs it.
@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_money_is_neither_created_nor_destroyed(db, monkeypatch, ops):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)
    monkeypatch.setattr(events, "bets_changed", lambda **kw: None)
    monkeypatch.setattr("tables.events.table_event", lambda *a, **k: None)
    with transaction.atomic():
        table = make_table(f"Prop {uuid.uuid4().hex[:8]}")
        players = [make_user(f"p{i}-{uuid.uuid4().hex[:8]}") for i in range(PLAYERS)]
        for user in players:
            wallet_services.wallet_deposit(user=user, amount="1000.00", reason="seed")
        number = 1
        round_ = make_round(table, number=number)
        for op in ops:
            if op[0] == "deposit":
                wallet_services.wallet_deposit(user=players[op[1]], amount=op[2], reason="top up")
            elif op[0] == "bet":
                with contextlib.suppress(DomainError):
                    placement.bet_place(
                        user=players[op[1]],
                        round_id=round_.pk,
                        mode=op[3],
                        bets=[{"type": t, "amount": f"{a:.2f}"} for t, a in op[2]],
                        idempotency_key=str(uuid.uuid4()),
                    )
            else:
                if op[0] == "settle":
                    deal(round_, op[1])
                    settlement.round_settle(round_id=round_.pk)
                else:
                    settlement.round_refund(round_id=round_.pk, reason="property")
                number += 1
                round_ = make_round(table, number=number)
            # every deposit comes from the house, so players + house stay at zero (reconcile checks it)
            assert casino_reconciliation().ok
            assert not Wallet.objects.filter(kind="player", balance__lt=0).exists()
        report = casino_reconciliation()
        assert report.ok, report.problems
        transaction.set_rollback(True)
