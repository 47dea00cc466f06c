"""Wallets and the append-only double-entry ledger.

Every movement of money is one :class:`LedgerTransaction` whose
:class:`LedgerEntry` rows sum to zero (a player's wallet against the house).
Rows are only ever inserted: the database refuses UPDATE and DELETE on
entries (see migration 0002). Money moves only through ``wallets.services``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from baccarat_site import money


class Wallet(models.Model):
    class Kind(models.TextChoices):
        PLAYER = "player", "Player"
        HOUSE = "house", "House"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="wallet",
    )
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PLAYER)
    currency = models.CharField(max_length=8, default="CHIPS")
    # For a player: always equal to the sum of the wallet's ledger entries.
    # For the house: not maintained on the bet path (no hot row); derive it
    # from the ledger (wallets.selectors.house_balance).
    balance = models.DecimalField(max_digits=14, decimal_places=2, default=money.ZERO)
    created_at = models.DateTimeField(auto_now_add=True)
    # Not a field: the house wallet's id, set only on a wallet read by wallets.services.wallet_lock_existing.
    house_id: int | None
    # Not a field either: whether the owner is staff (``baccarat_site.roles.is_staff_member``), read with the lock by
    # wallets.services.wallet_lock_existing. A staff account's wallet is frozen: nothing moves into or out of it.
    staff: bool | None

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="house") | Q(balance__gte=0),
                name="wallet_player_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=(Q(kind="house", user__isnull=True) | Q(kind="player", user__isnull=False)),
                name="wallet_player_has_user_house_has_none",
            ),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="house"), name="wallet_one_house"),
        ]
        permissions = [
            ("move_money", "Can deposit, withdraw and adjust play money"),
            ("approve_money", "Can approve another staff member's money request"),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.HOUSE:
            return "House"
        return f"{self.user} ({self.balance} {self.currency})"


class LedgerTransaction(models.Model):
    class Kind(models.TextChoices):
        DEPOSIT = "deposit", "Deposit"
        WITHDRAWAL = "withdrawal", "Withdrawal"
        STAKE = "stake", "Stake"
        PAYOUT = "payout", "Payout"
        REFUND = "refund", "Refund"
        ADJUSTMENT = "adjustment", "Adjustment"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    # What caused it, e.g. "bets:<placement id>", "round:<id>", "operator:<user id>".
    reference = models.CharField(max_length=80, blank=True, db_index=True)
    reason = models.CharField(max_length=200, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # A staff form's one-time key ("once:<key>:<player>") and an approved request ("request:<id>") each
            # move money once: the services check under the wallet's lock, and the database refuses a second.
            models.UniqueConstraint(
                fields=["reference"],
                condition=Q(reference__startswith="once:") | Q(reference__startswith="request:"),
                name="ledger_transaction_once_per_key",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.reference}"


class LedgerEntry(models.Model):
    # Both references are checked by the database once per INSERT statement, not once per row (migration 0006:
    # every entry's transaction and wallet exist, the wallet is locked FOR KEY SHARE until commit, and a wallet
    # with entries cannot be deleted), so neither is a per-row foreign key constraint. A round's settlement
    # writes thousands of entries; per-row checks cost more than writing them.
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="entries", db_constraint=False
    )
    # ledger_entry_wallet_recent (wallet, -id) serves every lookup by wallet: no index of its own.
    wallet = models.ForeignKey(
        Wallet, on_delete=models.PROTECT, related_name="entries", db_index=False, db_constraint=False
    )
    # Signed: positive credits the wallet, negative debits it.
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    # The wallet's balance right after this entry (player wallets; null on house entries).
    balance_after = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "ledger entries"
        ordering = ["-id"]
        indexes = [models.Index(fields=["wallet", "-id"], name="ledger_entry_wallet_recent")]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="ledger_entry_amount_not_zero"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+} → wallet {self.wallet_id}"


class MoneyRequest(models.Model):
    """Four-eyes: an operator's money movement over ``settings.MONEY_APPROVAL_THRESHOLD``, waiting for a second,
    different member of staff with ``wallets.approve_money`` to approve it (then it is applied, exactly once)
    or reject it. Written only by ``wallets.services``; read-only in the admin."""

    class Kind(models.TextChoices):
        DEPOSIT = "deposit", "Deposit"
        WITHDRAWAL = "withdrawal", "Withdrawal"
        ADJUSTMENT = "adjustment", "Adjustment"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved and applied"
        REJECTED = "rejected", "Rejected"

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="money_requests")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    # Signed as the movement it asks for: positive credits the player, negative debits them.
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    reason = models.CharField(max_length=200)
    # The one-time key of the form that asked for it (with the player): a resubmitted form asks once.
    key = models.CharField(max_length=64)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=200, blank=True)
    transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="money_request"
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["key", "player"], name="money_request_once_per_key"),
            models.CheckConstraint(condition=~Q(amount=0), name="money_request_amount_not_zero"),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("requested_by")),
                name="money_request_four_eyes",
            ),
            models.CheckConstraint(
                condition=~Q(requested_by=models.F("player")) & ~Q(decided_by=models.F("player")),
                name="money_request_not_own_wallet",
            ),
            models.CheckConstraint(
                condition=(
                    Q(status="pending", decided_by__isnull=True, transaction__isnull=True)
                    | Q(status="approved", decided_by__isnull=False, transaction__isnull=False)
                    | Q(status="rejected", decided_by__isnull=False, transaction__isnull=True)
                ),
                name="money_request_status_consistent",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {money.display(self.amount)} for {self.player} ({self.status})"


class MoneyAlert(models.Model):
    """Something in the staff's money movements a supervisor should look at, raised by ``wallets.services``.

    **Structuring**: ``settings.MONEY_STRUCTURING_COUNT`` staff movements to one player within
    ``MONEY_STRUCTURING_HOURS``, each of at least :data:`STRUCTURING_SHARE` of the approval threshold, applied or
    asked for: forms kept just under the threshold, one after another. One open alert per player at a time
    (``money_alert_open_once``): later movements while it is open raise nothing new.
    """

    #: A movement of at least this share of the approval threshold counts towards structuring.
    STRUCTURING_SHARE = "0.80"

    class Kind(models.TextChoices):
        STRUCTURING = "structuring", "Movements just under the approval threshold"

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.STRUCTURING)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="money_alerts")
    # The member of staff whose movement raised it (the others are named in ``detail``).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    count = models.PositiveIntegerField()
    # The movements' total, in absolute value.
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    detail = models.CharField("what happened", max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The acknowledging staff member's note.")

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("acknowledge_moneyalert", "Can acknowledge money alerts")]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "player"], condition=Q(acknowledged_at__isnull=True), name="money_alert_open_once"
            ),
            models.CheckConstraint(
                condition=Q(acknowledged_at__isnull=True, acknowledged_by__isnull=True)
                | Q(acknowledged_at__isnull=False, acknowledged_by__isnull=False),
                name="money_alert_acknowledged_by_someone",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.detail}"
