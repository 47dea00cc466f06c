"""Every movement of money, and nothing else.

Each movement is one :class:`LedgerTransaction` with entries that sum to zero:
a player's wallet against the house (a round's payouts or refunds: every paid
player's wallet against one house leg, in one transaction). Rules kept here
(and by the database, see migrations 0002, 0005 and 0006):

- a player's stored ``balance`` always equals the sum of the wallet's entries
  and each player entry records the balance right after it;
- a player's balance never goes below zero (check under the row lock, and a
  CHECK constraint behind it);
- wallets are locked with ``SELECT … FOR UPDATE`` in primary-key order;
- the house row is never locked or updated: its balance is the sum of its
  entries (``wallets.selectors.house_balance``), so bets of different players
  never wait for one another;
- a deposit, withdrawal or adjustment needs a reason and records an audit
  entry (``baccarat_site.audit``) with the balance before and after, in the
  same transaction as its ledger rows; its actor is never the wallet's owner;
- a staff account's wallet (``baccarat_site.roles.is_staff_member``: ``is_staff``,
  a superuser, or a member of a staff group) is frozen: no deposit, withdrawal,
  adjustment, starting money, refill or stake moves into or out of it
  (:class:`StaffWallet`); its balance is kept. The flag is read from the user
  with the wallet's lock, never stored, so it cannot drift from the account;
- staff movements above the approval threshold, counted over a rolling period
  per player and per member of staff, wait for a second member of staff.

Functions that take an already locked wallet say so; everything else opens
its own ``transaction.atomic`` block.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from baccarat_site import money
from baccarat_site.audit import audit
from baccarat_site.db import prepared_cursor
from baccarat_site.errors import Conflict, DomainError
from baccarat_site.roles import STAFF_GROUPS, is_staff_member
from wallets import selectors
from wallets.models import LedgerTransaction, MoneyAlert, MoneyRequest, Wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# wallets_wallet.balance / wallets_ledgerentry.amount are numeric(14, 2).
MAX_BALANCE = Decimal("999999999999.99")


class InvalidAmount(DomainError):
    code = "invalid_amount"


class InsufficientFunds(DomainError):
    code = "insufficient_funds"


class BalanceLimit(DomainError):
    code = "balance_limit"


class MissingReason(DomainError):
    code = "reason_required"


class OwnWallet(DomainError):
    """Segregation of duties: staff never move money into or out of their own wallet."""

    code = "own_wallet"


class StaffWallet(DomainError):
    """Staff do not gamble with the casino: a staff account's wallet is frozen (its balance kept)."""

    code = "staff_wallet"
    status = 403


def staff_wallet_refusal(user: Any) -> StaffWallet:
    return StaffWallet(
        f"{user} is a staff account: its wallet is frozen (balance kept) and no money moves into or out of it. "
        "Staff do not play."
    )


def _refuse_staff(wallet: Wallet, user: Any = None) -> None:
    """Raise :class:`StaffWallet` when the locked wallet's owner is staff (read with the lock, else now)."""
    staff = getattr(wallet, "staff", None)
    if staff is None:
        staff = wallet.staff = is_staff_member(wallet.user_id)
    if staff:
        raise staff_wallet_refusal(user if user is not None else f"User #{wallet.user_id}")


def positive_amount(value: Any) -> Decimal:
    """A positive amount that fits a wallet, as a 2-place Decimal, or :class:`InvalidAmount`.

    Accepts a ``Decimal``, an ``int`` or a plain decimal string ("10", "10.5", "10.50", a full match);
    refuses floats, NaN, infinities, exponents, signs and anything else.
    """
    amount = money.parse_amount(value, money.WALLET_PATTERN) if isinstance(value, str) else money.to_amount(value)
    if amount is None:
        raise InvalidAmount(f"{str(value)[:40]!r} is not an amount: use digits with at most two decimals.")
    if amount <= 0:
        raise InvalidAmount("An amount must be greater than zero.")
    if amount > MAX_BALANCE:
        raise InvalidAmount("That amount is larger than any wallet can hold.")
    return amount


def house_wallet() -> Wallet:
    """The one house account (created on first use)."""
    wallet = Wallet.objects.filter(kind=Wallet.Kind.HOUSE).first()
    if wallet is None:
        wallet, _ = Wallet.objects.get_or_create(
            kind=Wallet.Kind.HOUSE, defaults={"user": None, "currency": settings.CURRENCY}
        )
    return wallet


def wallet_for(*, user: User) -> Wallet:
    """The player's wallet, created (empty) on first use."""
    wallet = Wallet.objects.filter(user=user).first()
    if wallet is None:
        wallet, _ = Wallet.objects.get_or_create(
            user=user, defaults={"kind": Wallet.Kind.PLAYER, "currency": settings.CURRENCY}
        )
    return wallet


# The owner's staff status comes along (baccarat_site.roles.is_staff_member, in SQL): a staff wallet is frozen.
_LOCK_WALLET = """
SELECT w.id, w.balance, w.currency, (SELECT h.id FROM wallets_wallet h WHERE h.kind = 'house'),
       (u.is_staff OR u.is_superuser OR EXISTS (
            SELECT 1 FROM auth_user_groups ug JOIN auth_group g ON g.id = ug.group_id
            WHERE ug.user_id = u.id AND g.name = ANY(%(groups)s::text[])))
FROM wallets_wallet w JOIN auth_user u ON u.id = w.user_id
WHERE w.user_id = %(user)s AND w.kind = 'player'
FOR UPDATE OF w
"""


def wallet_lock(*, user: User) -> Wallet:
    """Lock and return the player's wallet (``SELECT … FOR UPDATE``), creating it if needed.

    Call inside ``transaction.atomic``; the lock is held until the transaction ends.
    """
    wallet = wallet_lock_existing(user_id=user.pk)
    if wallet is None:
        wallet_for(user=user)
        wallet = wallet_lock_existing(user_id=user.pk)
    assert wallet is not None
    return wallet


def wallet_lock_existing(*, user_id: int) -> Wallet | None:
    """Lock the player's wallet if there is one (one query; the house's id and whether the owner is staff come
    along, unlocked)."""
    with prepared_cursor() as cursor:
        cursor.execute(_LOCK_WALLET, {"groups": list(STAFF_GROUPS), "user": user_id})
        row = cursor.fetchone()
    if row is None:
        return None
    wallet_id, balance, currency, house_id, staff = cast("tuple[int, Decimal, str, int | None, bool]", row)
    wallet = Wallet(id=wallet_id, user_id=user_id, kind=Wallet.Kind.PLAYER, balance=balance, currency=currency)
    wallet.house_id = house_id
    wallet.staff = bool(staff)
    return wallet


_POST = """
WITH t AS (
    INSERT INTO wallets_ledgertransaction (kind, reference, reason, actor_id, created_at)
    VALUES (%(kind)s, %(reference)s, %(reason)s, %(actor)s, %(now)s)
    RETURNING id
), e AS (
    INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, amount, balance_after, created_at)
    SELECT t.id, v.wallet_id, v.amount, v.balance_after, %(now)s
    FROM t, (
        VALUES (%(wallet)s::bigint, %(amount)s::numeric, %(balance)s::numeric),
               (%(house)s::bigint, %(house_amount)s::numeric, NULL::numeric)
    ) AS v(wallet_id, amount, balance_after)
), w AS (
    UPDATE wallets_wallet SET balance = %(balance)s WHERE id = %(wallet)s
)
SELECT id FROM t
"""


def wallet_post(
    *,
    wallet: Wallet,
    amount: Decimal,
    kind: str,
    reference: str,
    reason: str = "",
    actor: User | None = None,
    now: datetime | None = None,
) -> int:
    """Move ``amount`` between a player wallet and the house (positive credits the player); return
    the ledger transaction's id.

    Call while holding the wallet's row lock (:func:`wallet_lock`), inside the
    caller's transaction. Refuses (before writing anything) a movement that
    would take the balance below zero or past what the column holds. One
    statement writes the transaction, both entries and the new balance. ``now`` (default: the clock) stamps them.
    A staff account's wallet is frozen: refused with :class:`StaffWallet`.
    """
    if wallet.kind != Wallet.Kind.PLAYER:
        raise DomainError("Only a player's wallet moves money against the house.")
    _refuse_staff(wallet)
    if amount == 0:
        raise InvalidAmount("A ledger movement cannot be zero.")
    new_balance = wallet.balance + amount
    if new_balance < 0:
        raise InsufficientFunds(
            f"The wallet holds {money.display(wallet.balance)}, not enough for {money.display(-amount)}."
        )
    if new_balance > MAX_BALANCE:
        raise BalanceLimit("That would take the wallet past the largest balance it can hold.")
    house_id = getattr(wallet, "house_id", None) or house_wallet().pk
    with prepared_cursor() as cursor:
        cursor.execute(
            _POST,
            {
                "kind": kind,
                "reference": reference[:80],
                "reason": reason[:200],
                "actor": actor.pk if actor is not None else None,
                "now": now or timezone.now(),
                "wallet": wallet.pk,
                "amount": amount,
                "house_amount": -amount,
                "balance": new_balance,
                "house": house_id,
            },
        )
        (transaction_id,) = cast("tuple[int]", cursor.fetchone())
    wallet.balance = new_balance
    return transaction_id


@transaction.atomic
def wallet_deposit(
    *, user: User, amount: Decimal | str | int, reason: str, reference: str = "", actor: User | None = None
) -> LedgerTransaction:
    """Credit play money to a player (from the house); audited as ``wallet.deposit``."""
    value = positive_amount(amount)
    return _operator_move(
        user=user,
        amount=value,
        kind=LedgerTransaction.Kind.DEPOSIT,
        action="wallet.deposit",
        reason=reason,
        reference=reference,
        actor=actor,
    )


@transaction.atomic
def wallet_withdraw(
    *, user: User, amount: Decimal | str | int, reason: str, reference: str = "", actor: User | None = None
) -> LedgerTransaction:
    """Debit a player's wallet back to the house; refused (:class:`InsufficientFunds`, nothing written)
    when the balance does not cover it. Audited as ``wallet.withdraw``."""
    value = positive_amount(amount)
    return _operator_move(
        user=user,
        amount=-value,
        kind=LedgerTransaction.Kind.WITHDRAWAL,
        action="wallet.withdraw",
        reason=reason,
        reference=reference,
        actor=actor,
    )


@transaction.atomic
def wallet_adjust(
    *, user: User, amount: Decimal, reason: str, reference: str = "", actor: User | None = None
) -> LedgerTransaction:
    """An operator's correction: ``amount`` is signed (positive credits the player, negative debits
    them, refused like a withdrawal when the balance does not cover it). Audited as ``wallet.adjust``."""
    if not isinstance(amount, Decimal):
        raise InvalidAmount("An adjustment is a signed Decimal.")
    value = positive_amount(abs(amount))
    return _operator_move(
        user=user,
        amount=value if amount > 0 else -value,
        kind=LedgerTransaction.Kind.ADJUSTMENT,
        action="wallet.adjust",
        reason=reason,
        reference=reference,
        actor=actor,
    )


def _operator_move(
    *,
    user: User,
    amount: Decimal,
    kind: str,
    action: str,
    reason: str,
    reference: str,
    actor: User | None,
    now: datetime | None = None,
) -> LedgerTransaction:
    """Post a signed ``amount`` between the player and the house, and record ``action`` in the audit
    trail with the balance before and after, in the caller's transaction (``actor`` is None for commands)."""
    reason = (reason or "").strip()
    if not reason:
        raise MissingReason("A money movement needs a reason.")
    if actor is not None and actor.pk == user.pk:
        raise OwnWallet("Nobody moves money into or out of their own wallet: another member of staff must do it.")
    wallet = wallet_lock(user=user)
    _refuse_staff(wallet, user)
    wallet.user = user  # for the audit entry's description, without another query
    before = wallet.balance
    txn_id = wallet_post(
        wallet=wallet,
        amount=amount,
        kind=kind,
        reference=reference or _operator_reference(actor),
        reason=reason,
        actor=actor,
        now=now,
    )
    audit(
        actor=actor,
        action=action,
        target=wallet,
        reason=reason,
        before={"balance": before},
        after={"balance": wallet.balance},
    )
    return LedgerTransaction.objects.get(pk=txn_id)


def _operator_reference(actor: User | None) -> str:
    return f"operator:{actor.pk}" if actor is not None else "operator"


# ── staff movements: once per form, and four eyes above the threshold ────────────────────────────────


class InvalidKey(DomainError):
    code = "invalid_key"


class NotAllowed(DomainError):
    code = "not_allowed"


class FourEyes(DomainError):
    """The member of staff who asked for a movement cannot be the one who approves it."""

    code = "four_eyes"


class RequestDecided(Conflict):
    code = "request_decided"


#: kind → (ledger kind, audit action)
_STAFF_KINDS = {
    MoneyRequest.Kind.DEPOSIT: (LedgerTransaction.Kind.DEPOSIT, "wallet.deposit"),
    MoneyRequest.Kind.WITHDRAWAL: (LedgerTransaction.Kind.WITHDRAWAL, "wallet.withdraw"),
    MoneyRequest.Kind.ADJUSTMENT: (LedgerTransaction.Kind.ADJUSTMENT, "wallet.adjust"),
}
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


@dataclass(frozen=True)
class StaffMovement:
    """What a staff movement did: applied (``transaction``), or asked for approval (``request``); ``repeated`` when
    its key had been used already, so this call did nothing new and reports what the first one did."""

    transaction: LedgerTransaction | None
    request: MoneyRequest | None
    repeated: bool
    why: str = ""  # why a request waits for approval (the threshold alone, or the window's totals)


def approval_threshold() -> Decimal:
    """The largest staff movement (absolute value) applied without a second member of staff's approval."""
    return money.cents(settings.MONEY_APPROVAL_THRESHOLD)


def _signed_amount(kind: str, amount: Decimal) -> Decimal:
    if kind == MoneyRequest.Kind.ADJUSTMENT:
        if not isinstance(amount, Decimal):
            raise InvalidAmount("An adjustment is a signed Decimal.")
        value = positive_amount(abs(amount))
        return value if amount > 0 else -value
    value = positive_amount(amount)
    return value if kind == MoneyRequest.Kind.DEPOSIT else -value


# pg_advisory_xact_lock(namespace, staff member's id): one staff member's movements are summed one at a time.
STAFF_LOCK_NAMESPACE = 0x4D4F


def _needs_approval(
    *, user: User, actor: User, size: Decimal, batch_size: int, key: str, now: datetime
) -> tuple[bool, str]:
    """Whether a movement of ``size`` (one of ``batch_size`` alike in one form) must wait for approval, and why:
    itself above the threshold, or with the staff movements of the window to the player, or by the staff member
    (the whole form counted once, by its total), past it."""
    threshold = approval_threshold()
    hours = settings.MONEY_APPROVAL_WINDOW_HOURS
    above = money.display(threshold)
    if size > threshold:
        return True, f"it is above {above}"
    totals = selectors.staff_movement_totals(
        player_id=user.pk, actor_id=actor.pk, since=now - selectors.approval_window(), exclude_key=key
    )
    if totals.to_player + size > threshold:
        moved = money.display(totals.to_player)
        return True, f"with the {moved} staff moved to or from {user} in the last {hours} hours it is above {above}"
    total = size * batch_size
    if totals.by_staff + total > threshold:
        moved = money.display(totals.by_staff)
        if batch_size > 1:
            return True, (
                f"this action's {money.display(total)} in all, with the {moved} {actor} moved in the last {hours} "
                f"hours, is above {above}"
            )
        return True, f"with the {moved} {actor} moved in the last {hours} hours it is above {above}"
    return False, ""


@transaction.atomic
def wallet_move_once(
    *,
    kind: str,
    user: User,
    amount: Decimal,
    reason: str,
    key: str,
    actor: User | None,
    now: datetime | None = None,
    batch_size: int = 1,
) -> StaffMovement:
    """A staff member's deposit, withdrawal or adjustment (``amount`` signed for an adjustment), asked for by a
    form that carries a one-time ``key``: the same key moves money (or asks for approval) once, however often the
    form is posted, and later posts report what the first did.

    Four eyes that adds up: it is not applied but created as a pending :class:`MoneyRequest` (for
    :func:`money_request_approve`) when its size is above :func:`approval_threshold`, or when with the staff
    movements applied in the last ``MONEY_APPROVAL_WINDOW_HOURS`` it would take either the player's total (every
    staff member's movements to or from them) or the staff member's own total (to anyone; a request of theirs
    counts once another approved it) past the threshold. ``batch_size`` is how many wallets the same form moves
    (one admin action over many wallets): the staff member is judged on the whole form's total, once, so its
    wallets all apply or all wait. Movements of at least 80% of the threshold repeated to one player raise a
    structuring alert (:func:`_structuring_check`).

    Under the staff member's advisory lock, then the player's wallet lock, so a concurrent second post waits for
    the first and finds it and two forms of one staff member are summed one after the other; the database's unique
    keys on the ledger reference and on the request stand behind that. Audited in either case. ``now`` (default:
    the clock) stamps the request or the ledger rows. A staff account's wallet is refused (:class:`StaffWallet`).
    """
    now = now or timezone.now()
    if kind not in _STAFF_KINDS:
        raise DomainError(f"Unknown money movement {kind!r}.")
    if not (8 <= len(key) <= 40 and set(key) <= _KEY_CHARS):
        raise InvalidKey("This form has no valid one-time key: open it again.")
    signed = _signed_amount(kind, amount)
    reason = (reason or "").strip()
    if not reason:
        raise MissingReason("A money movement needs a reason.")
    if actor is None:
        raise NotAllowed("A staff movement is made by a signed-in member of staff.")
    if actor.pk == user.pk:
        raise OwnWallet("Nobody moves money into or out of their own wallet: another member of staff must do it.")
    if batch_size < 1:
        raise DomainError("A form moves money for at least one wallet.")
    with prepared_cursor() as cursor:  # before any wallet lock: always in the same order, never a deadlock
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [STAFF_LOCK_NAMESPACE, actor.pk])
    wallet = wallet_lock(user=user)  # every movement of this wallet waits here: a repeated key finds the first's work
    reference = f"once:{key}:{user.pk}"
    done = LedgerTransaction.objects.filter(reference=reference).first()
    if done is not None:
        return StaffMovement(transaction=done, request=None, repeated=True)
    asked = MoneyRequest.objects.filter(key=key, player=user).first()
    if asked is not None:
        return StaffMovement(transaction=None, request=asked, repeated=True)
    _refuse_staff(wallet, user)
    wait, why = _needs_approval(user=user, actor=actor, size=abs(signed), batch_size=batch_size, key=key, now=now)
    if wait:
        request = MoneyRequest.objects.create(
            player=user,
            kind=kind,
            amount=signed,
            reason=reason,
            key=key,
            requested_by=actor,
            requested_at=now,
        )
        audit(
            actor=actor,
            action="wallet.request",
            target=request,
            reason=reason,
            after={"kind": kind, "amount": signed, "player": user.pk, "status": request.status},
            extra={"why": why},
        )
        _structuring_check(user=user, actor=actor, now=now)
        return StaffMovement(transaction=None, request=request, repeated=False, why=why)
    ledger_kind, action = _STAFF_KINDS[MoneyRequest.Kind(kind)]
    txn = _operator_move(
        user=user,
        amount=signed,
        kind=ledger_kind,
        action=action,
        reason=reason,
        reference=reference,
        actor=actor,
        now=now,
    )
    _structuring_check(user=user, actor=actor, now=now)
    return StaffMovement(transaction=txn, request=None, repeated=False)


def _structuring_check(*, user: User, actor: User, now: datetime) -> MoneyAlert | None:
    """Raise a structuring alert for ``user`` when ``MONEY_STRUCTURING_COUNT`` staff movements to them within
    ``MONEY_STRUCTURING_HOURS`` (applied, or asked for and not approved) were each between 80% of the approval
    threshold and the threshold: forms kept just under it. One open alert per player (later ones wait until it is
    acknowledged); returns the new alert, if any. Called in the movement's transaction, after it."""
    threshold = approval_threshold()
    floor = money.cents(threshold * Decimal(MoneyAlert.STRUCTURING_SHARE))
    hours = settings.MONEY_STRUCTURING_HOURS
    near = selectors.staff_movements_near_threshold(
        player_id=user.pk, since=now - timedelta(hours=hours), floor=floor, ceiling=threshold
    )
    if near.count < settings.MONEY_STRUCTURING_COUNT:
        return None
    if MoneyAlert.objects.filter(kind=MoneyAlert.Kind.STRUCTURING, player=user, acknowledged_at__isnull=True).exists():
        return None
    detail = (
        f"{near.count} staff movements of {money.display(floor)} to {money.display(threshold)} for {user} within "
        f"{hours} hours ({money.display(near.total)} in all), by {', '.join(near.staff)}: the approval threshold "
        f"is {money.display(threshold)}."
    )[:500]
    # Under the player's wallet lock (the movement's): two movements to one player never both get here.
    return MoneyAlert.objects.create(
        kind=MoneyAlert.Kind.STRUCTURING, player=user, actor=actor, count=near.count, amount=near.total, detail=detail
    )


def _decide(*, request_id: int, actor: User | None) -> MoneyRequest:
    """The pending request, locked, after the checks every decision shares."""
    if actor is None or not actor.has_perm("wallets.approve_money"):
        raise NotAllowed("Only staff with the right to approve money requests may decide one.")
    request = MoneyRequest.objects.select_for_update().select_related("player").filter(pk=request_id).first()
    if request is None:
        raise DomainError(f"There is no money request #{request_id}.")
    if request.status != MoneyRequest.Status.PENDING:
        raise RequestDecided(f"Money request #{request.pk} was already {request.get_status_display().lower()}.")
    if actor.pk == request.requested_by_id:
        raise FourEyes("A request must be approved by a different member of staff from the one who made it.")
    if actor.pk == request.player_id:
        raise OwnWallet("Nobody decides a money request for their own wallet.")
    return request


@transaction.atomic
def money_request_approve(
    *, request_id: int, actor: User | None, note: str = "", now: datetime | None = None
) -> MoneyRequest:
    """Approve a pending request and apply it, once: the request row is locked, a second approval (or a rejection
    meanwhile) finds it decided. Refused to its own maker, to the player, and to staff without
    ``wallets.approve_money``; an approval whose movement the wallet refuses (a withdrawal larger than the
    balance) changes nothing and stays pending. Audited with the approver, besides the movement's own entry.
    ``now`` (default: the clock) stamps ``decided_at`` and the ledger rows."""
    now = now or timezone.now()
    request = _decide(request_id=request_id, actor=actor)
    ledger_kind, action = _STAFF_KINDS[MoneyRequest.Kind(request.kind)]
    txn = _operator_move(
        user=request.player,
        amount=request.amount,
        kind=ledger_kind,
        action=action,
        reason=request.reason,
        reference=f"request:{request.pk}",
        actor=actor,
        now=now,
    )
    request.status = MoneyRequest.Status.APPROVED
    request.decided_by, request.decided_at, request.decision_note = actor, now, note.strip()[:200]
    request.transaction = txn
    request.save(update_fields=["status", "decided_by", "decided_at", "decision_note", "transaction"])
    audit(
        actor=actor,
        action="wallet.request.approve",
        target=request,
        reason=request.decision_note,
        before={"status": MoneyRequest.Status.PENDING},
        after={"status": request.status, "transaction": txn.pk, "requested_by": request.requested_by_id},
    )
    return request


@transaction.atomic
def money_request_reject(
    *, request_id: int, actor: User | None, note: str, now: datetime | None = None
) -> MoneyRequest:
    """Reject a pending request (with a reason): no money moves. The same checks as an approval. ``now``
    (default: the clock) stamps ``decided_at``."""
    now = now or timezone.now()
    note = (note or "").strip()
    if not note:
        raise MissingReason("Say why the request is rejected.")
    request = _decide(request_id=request_id, actor=actor)
    request.status = MoneyRequest.Status.REJECTED
    request.decided_by, request.decided_at, request.decision_note = actor, now, note[:200]
    request.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    audit(
        actor=actor,
        action="wallet.request.reject",
        target=request,
        reason=request.decision_note,
        before={"status": MoneyRequest.Status.PENDING},
        after={"status": request.status, "requested_by": request.requested_by_id},
    )
    return request


@dataclass(frozen=True)
class Credit:
    transaction_id: int
    balance: Decimal


def ledger_transaction_reserve() -> int:
    """A ledger transaction id, drawn now and written by a later :func:`wallets_credit_many` in the same database
    transaction: settlement records it on the round's stakes that pay before the ledger rows exist. An id drawn
    and never written is a gap in the sequence, nothing more."""
    with prepared_cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('wallets_ledgertransaction', 'id'))")
        (transaction_id,) = cast("tuple[int]", cursor.fetchone())
    return transaction_id


# One ledger transaction for every credit: its header, a leg per player, one house leg for the total, and the
# players' new balances, in one statement.
_CREDIT_MANY = """
WITH v AS (
    SELECT * FROM unnest(%(wallets)s::bigint[], %(amounts)s::numeric[], %(balances)s::numeric[])
        AS v(wallet_id, amount, balance)
), t AS (
    INSERT INTO wallets_ledgertransaction (id, kind, reference, reason, actor_id, created_at)
    VALUES (%(txn)s, %(kind)s, %(reference)s, %(reason)s, NULL, %(now)s)
), e AS (
    INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, amount, balance_after, created_at)
    SELECT %(txn)s, wallet_id, amount, balance, %(now)s FROM v
    UNION ALL
    SELECT %(txn)s, %(house)s, %(house_amount)s, NULL, %(now)s
)
UPDATE wallets_wallet AS w SET balance = v.balance FROM v WHERE w.id = v.wallet_id
"""


@transaction.atomic(savepoint=False)  # a failure fails the caller's whole transaction: no savepoint needed
def wallets_credit_many(
    *,
    credits: Mapping[int, Decimal],
    kind: str,
    reference: str,
    reason: str = "",
    transaction_id: int | None = None,
    now: datetime | None = None,
) -> dict[int, Credit]:
    """Credit many players at once (a round's payouts or refunds): ``{user_id: amount > 0}``.

    One ledger transaction for all of them: a leg per player and one house leg for the total, whatever the
    number of players, in two statements: the wallets are locked in primary-key order with one
    ``SELECT … FOR UPDATE`` (so two settlements never deadlock), then one statement writes the transaction,
    its legs and the new balances. ``transaction_id`` is an id from :func:`ledger_transaction_reserve`, when the
    caller recorded it elsewhere first. ``now`` (default: the clock) stamps the rows. Returns
    ``{user_id: Credit}``; every credit names the same transaction.
    """
    amounts_of = {int(uid): money.to_amount(amount) for uid, amount in credits.items()}
    if not amounts_of:
        return {}
    if any(amount is None or amount <= 0 for amount in amounts_of.values()):
        raise InvalidAmount("Credits must be positive amounts with at most two decimals.")
    user_ids = sorted(amounts_of)
    house_id = house_wallet().pk
    with prepared_cursor() as cursor:
        rows = _lock_wallets(cursor, user_ids)
        if len(rows) != len(user_ids):
            present = {row[1] for row in rows}
            for user in get_user_model().objects.filter(pk__in=[u for u in user_ids if u not in present]):
                wallet_for(user=user)
            rows = _lock_wallets(cursor, user_ids)
            if len(rows) != len(user_ids):
                raise DomainError("Cannot credit a user that does not exist.")
        wallet_ids: list[int] = []
        users: list[int] = []
        amounts: list[Decimal] = []
        balances: list[Decimal] = []
        for wallet_id, user_id, balance in rows:
            amount = amounts_of[user_id]
            assert amount is not None
            new_balance = balance + amount
            if new_balance > MAX_BALANCE:
                raise BalanceLimit(f"Crediting user {user_id} would exceed the largest balance a wallet holds.")
            wallet_ids.append(wallet_id)
            users.append(user_id)
            amounts.append(amount)
            balances.append(new_balance)
        txn = transaction_id if transaction_id is not None else ledger_transaction_reserve()
        cursor.execute(
            _CREDIT_MANY,
            {
                "wallets": wallet_ids,
                "amounts": amounts,
                "balances": balances,
                "txn": txn,
                "kind": kind,
                "reference": reference[:80],
                "reason": reason[:200],
                "now": now or timezone.now(),
                "house": house_id,
                "house_amount": -sum(amounts),
            },
        )
        if cursor.rowcount != len(users):
            raise RuntimeError(f"credited {cursor.rowcount} of {len(users)} wallets")
    return {
        user_id: Credit(transaction_id=txn, balance=balance) for user_id, balance in zip(users, balances, strict=True)
    }


def _lock_wallets(cursor: Any, user_ids: list[int]) -> list[tuple[int, int, Decimal]]:
    cursor.execute(
        "SELECT id, user_id, balance FROM wallets_wallet WHERE user_id = ANY(%s::bigint[]) AND kind = 'player'"
        " ORDER BY id FOR UPDATE",
        [user_ids],
    )
    return list(cursor.fetchall())


# ── starting money and refills ──────────────────────────────────────────────


class RefillNotNeeded(Conflict):
    code = "refill_not_needed"


class RefillTooSoon(Conflict):
    """Refused because the last refill was less than an hour ago; ``retry_after`` is the wait in seconds."""

    code = "refill_too_soon"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "retry_after": self.retry_after}


@transaction.atomic
def wallet_open_player(*, user: User, credit: bool = True) -> LedgerTransaction | None:
    """Give a new player the starting play money (``settings.STARTING_BALANCE``) as a deposit from the house.

    Exactly once per player: under the wallet's row lock, a second call (or a concurrent one, which waits for
    the lock) finds the first one's ledger transaction by its reference and returns it, writing nothing.
    ``credit=False`` (a sign-up past its address's credited ones) opens the wallet at 0.00 and credits nothing;
    its first refill then waits :data:`selectors.REFILL_INTERVAL` from the opening
    (``selectors.wallet_refill_status``). Returns None then. A staff account gets none (:class:`StaffWallet`).
    """
    wallet = wallet_lock(user=user)
    if not credit:
        return None
    _refuse_staff(wallet, user)
    reference = selectors.signup_reference(user_id=user.pk)
    done = LedgerTransaction.objects.filter(reference=reference, entries__wallet_id=wallet.pk).first()
    if done is not None:
        return done
    txn_id = wallet_post(
        wallet=wallet,
        amount=positive_amount(selectors.starting_balance()),
        kind=LedgerTransaction.Kind.DEPOSIT,
        reference=reference,
        reason="Starting play money",
    )
    return LedgerTransaction.objects.get(pk=txn_id)


@transaction.atomic
def wallet_refill(*, user: User, minimum_stake: Decimal, now: datetime | None = None) -> LedgerTransaction:
    """Top a player's play money back up to the starting balance, from the house.

    Allowed when the balance is below ``minimum_stake`` (the smallest stake a player can bet, which the
    tables know) and the last refill was at least an hour ago; refused
    otherwise with :class:`RefillNotNeeded` or :class:`RefillTooSoon` (409, nothing written). The rules are
    read under the wallet's row lock, so two refills at once credit once: the second sees the first's balance.
    ``now`` (default: the clock) is when the hour is counted to, and stamps the deposit. A staff account's wallet
    is frozen: refused with :class:`StaffWallet` (403) before the rules are read.
    """
    now = now or timezone.now()
    wallet = wallet_lock(user=user)
    _refuse_staff(wallet, user)
    status = selectors.wallet_refill_status(user=user, minimum_stake=minimum_stake, balance=wallet.balance, now=now)
    if status.refusal == "refill_not_needed":
        raise RefillNotNeeded(
            f"A refill is for a balance below the smallest table minimum ({money.display(status.minimum)}); "
            f"this wallet holds {money.display(wallet.balance)}."
        )
    if status.refusal == "refill_too_soon":
        assert status.retry_after is not None  # RefillStatus: set whenever the refusal is refill_too_soon
        minutes = math.ceil(status.retry_after / 60)
        raise RefillTooSoon(
            f"One refill an hour: the next is possible in {minutes} minute{'s' if minutes != 1 else ''}.",
            retry_after=status.retry_after,
        )
    txn_id = wallet_post(
        wallet=wallet,
        amount=status.starting - wallet.balance,
        kind=LedgerTransaction.Kind.DEPOSIT,
        reference=selectors.refill_reference(user_id=user.pk),
        reason="Play-money refill",
        now=now,
    )
    return LedgerTransaction.objects.get(pk=txn_id)


# ── a player made staff: the wallet freezes ─────────────────────────────────────────────────────────────


def wallet_staff_changed(*, user_id: int, was_staff: bool) -> bool | None:
    """Record in the audit trail that a user's wallet froze (the account became staff: ``is_staff``, a superuser, or
    added to a staff group) or thawed (it stopped being staff), with the balance it keeps. Called by the user's
    ``post_save`` and ``m2m_changed`` receivers (``baccarat_site.accounts.signals``) with whether the account was
    staff before the change. The freeze itself is not stored: every money path reads the account's staff status
    with the wallet's lock (:func:`wallet_lock_existing`), so it holds from the moment the change commits, and
    whatever path made the change. Returns whether the wallet is frozen now, or None when nothing changed (or
    there is no wallet: an empty one has nothing to freeze, and is refused money all the same)."""
    now_staff = is_staff_member(user_id)
    if now_staff == was_staff:
        return None
    wallet = Wallet.objects.select_related("user").filter(user_id=user_id, kind=Wallet.Kind.PLAYER).first()
    if wallet is None:
        return None
    audit(
        actor=None,  # the request's user in the admin, a command's OS user (baccarat_site.audit.stamp_entry)
        action="wallet.freeze" if now_staff else "wallet.unfreeze",
        target=wallet,
        reason=(
            "The account became staff: staff do not play, so the wallet is frozen, its balance kept."
            if now_staff
            else "The account is no longer staff: the wallet can be funded and staked again."
        ),
        before={"frozen": was_staff, "balance": wallet.balance},
        after={"frozen": now_staff, "balance": wallet.balance},
    )
    return now_staff


# ── money alerts ──────────────────────────────────────────────────────────────────────────────────────


class AlertAcknowledged(Conflict):
    code = "alert_already_acknowledged"


@transaction.atomic
def money_alert_acknowledge(
    *, alert_id: int, actor: User | None, note: str = "", now: datetime | None = None
) -> MoneyAlert:
    """Mark an open money alert acknowledged by ``actor`` (who needs ``wallets.acknowledge_moneyalert``), with an
    optional note, audited. Compare-and-set: a second acknowledgement is refused (:class:`AlertAcknowledged`) and
    changes nothing. Once acknowledged, the player's next structuring raises a new alert."""
    now = now or timezone.now()
    if actor is None or not actor.has_perm("wallets.acknowledge_moneyalert"):
        raise NotAllowed("You may view money alerts but not acknowledge them.", status=403)
    note = (note or "").strip()[:200]
    updated = MoneyAlert.objects.filter(pk=alert_id, acknowledged_at__isnull=True).update(
        acknowledged_by=actor, acknowledged_at=now, note=note
    )
    alert = MoneyAlert.objects.select_related("acknowledged_by", "player").filter(pk=alert_id).first()
    if alert is None:
        raise DomainError(f"There is no money alert #{alert_id}.", code="not_found", status=404)
    if updated != 1:
        raise AlertAcknowledged(f"Money alert #{alert.pk} was already acknowledged by {alert.acknowledged_by}.")
    audit(
        actor=actor,
        action="money_alert.acknowledge",
        target=alert,
        reason=note,
        before={"acknowledged_at": None},
        after={"acknowledged_at": now, "acknowledged_by": actor.get_username()},
    )
    return alert
