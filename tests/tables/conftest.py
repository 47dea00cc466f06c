"""Fixtures the tables tests share: ``player`` (a user with a funded wallet), ``betting_round`` (a round open for
bets for a minute), ``place`` (a batch of bets through ``bet_place``) and ``deal`` (a round dealt from given
cards and left in ``result``). The fake clock is the top conftest's ``clock`` (tests/clock.py)."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from tables.engine import deal_round, parse_cards
from tables.models import Round
from tables.services.placement import bet_place
from tests.factories import make_round, make_table, make_user
from wallets import services as wallet_services


@pytest.fixture
def player(db):
    """``player("bob", "100.00")`` → a user whose wallet holds that much (deposited through the ledger)."""

    def make(username: str = "alice", balance: str | Decimal = "1000.00"):
        user = make_user(username=username)
        wallet_services.wallet_for(user=user)
        if Decimal(balance) > 0:
            wallet_services.wallet_deposit(user=user, amount=Decimal(balance), reason="test funding")
        return user

    return make


@pytest.fixture
def betting_round(db):
    """A round of a fresh 8-deck table, open for bets for a minute."""
    return make_round(make_table("Money table"), closes_in=60)


@pytest.fixture
def place(db):
    """``place(user, round, ("player", "10.00"), …, mode=…, key=…)`` → bet_place's answer."""

    def do(user, round_, *bets: tuple[str, str], mode: str = "traditional", key: str | None = None) -> dict:
        return bet_place(
            user=user,
            round_id=round_.pk,
            mode=mode,
            bets=[{"type": t, "amount": a} for t, a in bets],
            idempotency_key=key or str(uuid.uuid4()),
        ).as_body()

    return do


@pytest.fixture
def deal(db):
    """``deal(round_, "5H KD 3C 9S 8D 2C")`` → the round dealt from those cards and left in ``result``."""

    def do(round_, cards: str) -> Round:
        result = deal_round(iter(parse_cards(cards)))
        stored = [
            {"hand": hand, "card": str(card), "position": position}
            for position, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
        ]
        Round.objects.filter(pk=round_.pk).update(
            state=Round.State.RESULT,
            cards=stored,
            player_total=result.player_total,
            banker_total=result.banker_total,
            winner=result.winner,
            flags=result.flags(),
        )
        round_.refresh_from_db()
        return round_

    return do
