"""Reads of wallets and the ledger (no writes here: money moves in wallets.services)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

from django.conf import settings
from django.db import connection
from django.db.models import Q, QuerySet, Sum
from django.db.models.functions import Abs
from django.utils import timezone

from baccarat_site.money import CENT, ZERO, cents
from wallets.models import LedgerEntry, LedgerTransaction, MoneyRequest, Wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class WalletBalance(TypedDict):
    balance: Decimal
    currency: str


def wallet_balance(*, user: User) -> WalletBalance:
    """``{"balance": Decimal, "currency": str}``; a player without a wallet yet has 0.00."""
    row = Wallet.objects.filter(user=user).values("balance", "currency").first()
    return row or {"balance": ZERO, "currency": settings.CURRENCY}


def balances_of(*, user_ids: Iterable[int]) -> dict[int, Decimal]:
    """``{user_id: stored balance}`` of these players' wallets, in one query (players without one are left out)."""
    ids = list(user_ids)
    if not ids:
        return {}
    return dict(Wallet.objects.filter(user_id__in=ids, kind=Wallet.Kind.PLAYER).values_list("user_id", "balance"))


def ledger_entries(*, user: User) -> QuerySet[LedgerEntry]:
    """The player's own ledger entries, newest first, with their transaction."""
    return (
        LedgerEntry.objects.filter(wallet__user=user, wallet__kind=Wallet.Kind.PLAYER)
        .select_related("transaction")
        .order_by("-id")
    )


def house_balance() -> Decimal:
    """The house's balance: the sum of its ledger entries (its row is never updated)."""
    total = LedgerEntry.objects.filter(wallet__kind=Wallet.Kind.HOUSE).aggregate(total=Sum("amount"))["total"]
    return cents(total)


def wallet_ledger_balances(*, wallet_ids: Iterable[int]) -> dict[int, Decimal]:
    """``{wallet_id: sum of its ledger entries}`` for the given wallets, in one query (0.00 without entries).

    For a player this equals the stored balance in a sound ledger; for the house it is its only balance,
    since its row is never updated on the bet path.
    """
    ids = list(wallet_ids)
    balances = dict.fromkeys(ids, ZERO)
    if ids:
        rows = (
            LedgerEntry.objects.filter(wallet_id__in=ids)
            .values("wallet_id")
            .annotate(total=Sum("amount"))
            .values_list("wallet_id", "total")
            .order_by()
        )
        balances.update({wallet_id: cents(total) for wallet_id, total in rows})
    return balances


def wallet_ledger_balance(*, wallet: Wallet) -> Decimal:
    """One wallet's balance from its ledger entries (see :func:`wallet_ledger_balances`)."""
    return wallet_ledger_balances(wallet_ids=[wallet.pk])[wallet.pk]


@dataclass
class Reconciliation:
    wallets: int = 0
    entries: int = 0
    transactions: int = 0
    player_total: Decimal = ZERO
    house_balance: Decimal = ZERO
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# Each check is (description, SQL returning offending rows as text).
_CHECKS: tuple[tuple[str, str], ...] = (
    (
        "player wallet balance differs from the sum of its entries",
        """
        SELECT format('wallet %s: stored %s, entries sum to %s', w.id, w.balance, COALESCE(s.total, 0))
        FROM wallets_wallet w
        LEFT JOIN (SELECT wallet_id, SUM(amount) AS total FROM wallets_ledgerentry GROUP BY wallet_id) s
          ON s.wallet_id = w.id
        WHERE w.kind = 'player' AND w.balance <> COALESCE(s.total, 0)
        """,
    ),
    (
        "player wallet balance is negative",
        "SELECT format('wallet %s: %s', id, balance) FROM wallets_wallet WHERE kind = 'player' AND balance < 0",
    ),
    (
        "player entry's balance_after differs from the running sum of the wallet's entries",
        """
        SELECT format('entry %s of wallet %s: balance_after %s, running sum %s', id, wallet_id, balance_after, running)
        FROM (
            SELECT e.id, e.wallet_id, e.balance_after,
                   SUM(e.amount) OVER (PARTITION BY e.wallet_id ORDER BY e.id) AS running
            FROM wallets_ledgerentry e JOIN wallets_wallet w ON w.id = e.wallet_id
            WHERE w.kind = 'player'
        ) r
        WHERE balance_after IS DISTINCT FROM running
        """,
    ),
    (
        "ledger transaction does not sum to zero",
        """
        SELECT format('transaction %s: entries sum to %s', transaction_id, SUM(amount))
        FROM wallets_ledgerentry GROUP BY transaction_id HAVING SUM(amount) <> 0
        """,
    ),
    (
        "ledger transaction without entries",
        """
        SELECT format('transaction %s (%s %s)', t.id, t.kind, t.reference) FROM wallets_ledgertransaction t
        WHERE NOT EXISTS (SELECT 1 FROM wallets_ledgerentry e WHERE e.transaction_id = t.id)
        """,
    ),
    (
        "all entries together do not sum to zero",
        "SELECT format('all entries sum to %s', SUM(amount)) FROM wallets_ledgerentry HAVING SUM(amount) <> 0",
    ),
    (
        "players' balances plus the house's do not sum to zero",
        """
        SELECT format('players hold %s, the house %s', p.total, h.total)
        FROM (SELECT COALESCE(SUM(balance), 0) AS total FROM wallets_wallet WHERE kind = 'player') p,
             (SELECT COALESCE(SUM(e.amount), 0) AS total FROM wallets_ledgerentry e
                JOIN wallets_wallet w ON w.id = e.wallet_id WHERE w.kind = 'house') h
        WHERE p.total + h.total <> 0
        """,
    ),
)


def ledger_reconciliation(
    *, limit_per_check: int = 20, extra_checks: tuple[tuple[str, str], ...] = ()
) -> Reconciliation:
    """Check every wallet against its ledger and the ledger against itself; ``extra_checks`` are more
    ``(description, SQL)`` pairs from the apps that point into the ledger (the bets:
    ``tables.selectors.bets.casino_reconciliation``)."""
    report = Reconciliation()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT COUNT(*) FROM wallets_wallet), (SELECT COUNT(*) FROM wallets_ledgerentry),"
            " (SELECT COUNT(*) FROM wallets_ledgertransaction),"
            " (SELECT COALESCE(SUM(balance), 0) FROM wallets_wallet WHERE kind = 'player')"
        )
        report.wallets, report.entries, report.transactions, report.player_total = cursor.fetchone()
        for description, sql in (*_CHECKS, *extra_checks):
            cursor.execute(f"{sql} LIMIT {int(limit_per_check)}")
            report.problems.extend(f"{description}: {row[0]}" for row in cursor.fetchall())
    report.house_balance = house_balance()
    return report


# ── starting money and refills (the services are in wallets.services) ────────

#: How often a player short of play money may refill it.
REFILL_INTERVAL = timedelta(hours=1)


def signup_reference(*, user_id: int) -> str:
    """The ledger reference of a player's starting money (one per player)."""
    return f"signup:{user_id}"


def refill_reference(*, user_id: int) -> str:
    """The ledger reference of every refill of a player's play money."""
    return f"refill:{user_id}"


def starting_balance() -> Decimal:
    """``settings.STARTING_BALANCE`` (default 1,000.00): a new player's play money, and what a refill tops up to."""
    return Decimal(str(getattr(settings, "STARTING_BALANCE", "1000.00"))).quantize(CENT)


def wallet_last_refill_at(*, user: User) -> datetime | None:
    """When the player last refilled (None: never)."""
    return (
        LedgerTransaction.objects.filter(
            reference=refill_reference(user_id=user.pk), kind=LedgerTransaction.Kind.DEPOSIT
        )
        .order_by("-id")
        .values_list("created_at", flat=True)
        .first()
    )


@dataclass(frozen=True)
class RefillStatus:
    """Whether the player may refill now, and if not why: ``refusal`` is ``refill_not_needed`` or
    ``refill_too_soon`` (then ``retry_after`` says in how many seconds)."""

    balance: Decimal
    minimum: Decimal
    starting: Decimal
    refusal: str | None
    retry_after: int | None

    @property
    def allowed(self) -> bool:
        return self.refusal is None


def wallet_opened_unfunded_at(*, user: User) -> datetime | None:
    """When the player's wallet was opened, if it never received any deposit: not the starting money (a sign-up
    past its address's credited ones), nor staff's or a command's. None once any deposit reached it."""
    funded = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.DEPOSIT, entries__wallet__user_id=user.pk
    ).exists()
    if funded:
        return None
    return Wallet.objects.filter(user_id=user.pk).values_list("created_at", flat=True).first()


def wallet_refill_status(
    *, user: User, minimum_stake: Decimal, balance: Decimal | None = None, now: datetime | None = None
) -> RefillStatus:
    """The refill rules, read: a balance below ``minimum_stake`` (the smallest stake a player can bet, which
    the tables know: ``tables.selectors.tables.table_minimum_stake``) and below the starting balance may be
    topped up to the starting balance, at most once per :data:`REFILL_INTERVAL`. ``balance`` is the locked
    wallet's when the refill service asks; otherwise the stored one."""
    if balance is None:
        balance = wallet_balance(user=user)["balance"]
    minimum, starting = minimum_stake, starting_balance()
    if balance >= minimum or balance >= starting:
        return RefillStatus(balance, minimum, starting, "refill_not_needed", None)
    # A wallet opened without the starting money (an address's sign-ups past its credited ones) counts its
    # opening as its last top-up: a new account cannot be made only to refill it at once.
    last = wallet_last_refill_at(user=user) or wallet_opened_unfunded_at(user=user)
    now = now or timezone.now()
    if last is not None and now < last + REFILL_INTERVAL:
        left = last + REFILL_INTERVAL - now
        seconds = max(1, math.ceil(left.total_seconds()))
        return RefillStatus(balance, minimum, starting, "refill_too_soon", seconds)
    return RefillStatus(balance, minimum, starting, None, None)


# ── staff movements over a rolling period (four eyes that add up) ───────────────────────────────────────────

#: The ledger kinds of a staff movement (with an actor: a command's movements have none and are not counted).
STAFF_MOVEMENT_KINDS = (
    LedgerTransaction.Kind.DEPOSIT,
    LedgerTransaction.Kind.WITHDRAWAL,
    LedgerTransaction.Kind.ADJUSTMENT,
)


def approval_window() -> timedelta:
    """The rolling period over which staff movements are summed against the approval threshold."""
    return timedelta(hours=settings.MONEY_APPROVAL_WINDOW_HOURS)


def _staff_legs(*, since: datetime) -> QuerySet[LedgerEntry]:
    """The player legs of the staff movements applied since ``since`` (an approved request's included)."""
    return LedgerEntry.objects.filter(
        transaction__kind__in=STAFF_MOVEMENT_KINDS,
        transaction__actor__isnull=False,
        transaction__created_at__gte=since,
        wallet__kind=Wallet.Kind.PLAYER,
    )


@dataclass(frozen=True)
class StaffTotals:
    """Staff movements applied in the window, in absolute value: to the player, and asked for by the staff member
    (a movement they applied themselves, or their request once another approved it)."""

    to_player: Decimal
    by_staff: Decimal


def staff_movement_totals(*, player_id: int, actor_id: int, since: datetime, exclude_key: str = "") -> StaffTotals:
    """What staff moved to ``player_id`` and what ``actor_id`` moved (to anyone) since ``since``, deposits,
    withdrawals and adjustments alike counted by their size (a withdrawal does not cancel a deposit).
    ``exclude_key`` leaves out, on the staff member's side, the movements of one form (one admin action over many
    wallets is judged by its total, which the caller adds once)."""
    legs = _staff_legs(since=since)
    to_player = legs.filter(wallet__user_id=player_id).aggregate(total=Sum(Abs("amount")))["total"]
    mine = legs.filter(
        Q(transaction__money_request__requested_by_id=actor_id)
        | Q(transaction__money_request__isnull=True, transaction__actor_id=actor_id)
    )
    if exclude_key:
        mine = mine.exclude(transaction__reference__startswith=f"once:{exclude_key}:")
    by_staff = mine.aggregate(total=Sum(Abs("amount")))["total"]
    return StaffTotals(to_player=to_player or ZERO, by_staff=by_staff or ZERO)


@dataclass(frozen=True)
class NearThreshold:
    """Staff movements to one player of at least a share of the threshold: how many, their total, and who."""

    count: int
    total: Decimal
    staff: list[str] = field(default_factory=list)


def staff_movements_near_threshold(
    *, player_id: int, since: datetime, floor: Decimal, ceiling: Decimal
) -> NearThreshold:
    """Staff movements to ``player_id`` since ``since`` sized between ``floor`` and ``ceiling`` (inclusive): those
    applied, and those asked for that are waiting or were rejected (an approved one is counted once, applied)."""
    applied = list(
        _staff_legs(since=since)
        .filter(wallet__user_id=player_id)
        .annotate(size=Abs("amount"))
        .filter(size__gte=floor, size__lte=ceiling)
        .values_list("size", "transaction__actor__username")
    )
    asked = list(
        MoneyRequest.objects.filter(player_id=player_id, requested_at__gte=since)
        .exclude(status=MoneyRequest.Status.APPROVED)
        .annotate(size=Abs("amount"))
        .filter(size__gte=floor, size__lte=ceiling)
        .values_list("size", "requested_by__username")
    )
    rows = applied + asked
    return NearThreshold(
        count=len(rows), total=cents(sum((size for size, _ in rows), ZERO)), staff=sorted({name for _, name in rows})
    )
