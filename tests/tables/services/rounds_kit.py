"""Helpers for the live-loop tests: funded players, fast tables, a fake clock, a group listener."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from channels.layers import get_channel_layer
from django.db.models import Count
from django.utils import timezone

from tables.models import Round, Table
from tables.services import ticker
from tables.services.placement import bet_place
from tests.factories import make_table, make_user
from wallets import services as wallet_services
from wallets.models import LedgerEntry, LedgerTransaction, Wallet


def make_player(username: str = "alice", balance: str = "1000.00"):
    user = make_user(username=username)
    wallet_services.wallet_for(user=user)
    if Decimal(balance) > 0:
        wallet_services.wallet_deposit(user=user, amount=Decimal(balance), reason="test funding")
    return user


def fast_table(name: str = "Fast", **fields: Any) -> Table:
    options = {"betting_seconds": 1, "deal_interval_ms": 10, "result_seconds": 0, "settle_delay_ms": 0, **fields}
    return make_table(name, **options)


def balance_of(user: Any) -> Decimal:
    return Wallet.objects.get(user=user).balance


def place(
    user: Any, round_id: int, *bets: tuple[str, str], mode: str = "traditional", now: datetime | None = None
) -> dict:
    """Bets on a round at ``now``; by default the wall clock, held inside the round's window. These tests drive the
    table on their own clock: a 1 s window closes on the wall clock while a busy machine runs the test, and that
    lateness is the machine's, not the casino's."""
    if now is None:
        opens_at, closes_at = Round.objects.values_list("opens_at", "closes_at").get(pk=round_id)
        now = max(opens_at, min(timezone.now(), closes_at - timedelta(milliseconds=1)))
    return bet_place(
        user=user,
        round_id=round_id,
        mode=mode,
        bets=[{"type": t, "amount": a} for t, a in bets],
        idempotency_key=str(uuid.uuid4()),
        now=now,
    ).as_body()


class Clock:
    """A fake ``now`` for the state machine that only moves forward, starting at the real now."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or timezone.now()

    def jump_to(self, when: datetime | None) -> None:
        if when is not None and when > self.now:
            self.now = when

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def latest_round(table: Table) -> Round | None:
    return Round.objects.filter(table=table).order_by("-id").first()


def drive(table: Table, clock: Clock, until: Callable[[], bool], *, max_steps: int = 5000) -> list[str]:
    """Advance ``table`` one step at a time, jumping the clock to each deadline, until ``until()``."""
    steps: list[str] = []
    idle = 0
    while not until():
        if len(steps) >= max_steps:
            raise AssertionError(f"still not there after {max_steps} steps: {steps[-20:]}")
        step = ticker.table_step(table_id=table.pk, now=clock.now)
        if step is not None:
            steps.append(step)
            idle = 0
            continue
        idle += 1
        if idle > 3:
            raise AssertionError(f"table {table.pk} is stuck after {steps[-20:]}")
        clock.jump_to(Table.objects.get(pk=table.pk).next_action_at)
    return steps


def drive_to_state(table: Table, clock: Clock, state: str, **kwargs: Any) -> Round:
    drive(table, clock, lambda: (r := latest_round(table)) is not None and r.state == state, **kwargs)
    return latest_round(table)  # type: ignore[return-value]


class GroupListener:
    """Receives what is sent to a Channels group, on the real Redis layer (on a private event loop, since
    channels_redis binds a channel's receive buffer to the loop that first used it)."""

    def __init__(self, group: str) -> None:
        self.layer = get_channel_layer()
        self.loop = asyncio.new_event_loop()
        self.channel = self.loop.run_until_complete(self.layer.new_channel())
        self.loop.run_until_complete(self.layer.group_add(group, self.channel))

    def drain(self, timeout: float = 0.3) -> list[dict[str, Any]]:
        async def collect() -> list[dict[str, Any]]:
            out = []
            while True:
                try:
                    out.append(await asyncio.wait_for(self.layer.receive(self.channel), timeout))
                except TimeoutError:
                    return out

        return self.loop.run_until_complete(collect())

    def types(self, timeout: float = 0.3) -> list[str]:
        return [m["type"] for m in self.drain(timeout)]


def paid_twice() -> list[dict[str, Any]]:
    """(reference, wallet) pairs with more than one payout or refund entry for a player: a round pays each player
    once, so any row here is a double payment (the processes tests kill mid-round must leave none)."""
    return list(
        LedgerEntry.objects.filter(
            transaction__kind__in=[LedgerTransaction.Kind.PAYOUT, LedgerTransaction.Kind.REFUND],
            wallet__kind=Wallet.Kind.PLAYER,
        )
        .values("transaction__reference", "wallet_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
