"""Tables, variants, shoes, rounds and bets.

The rules live in ``tables.engine`` (plain Python); these rows persist what
the engine decides. Round transitions are compare-and-set updates in
``tables.services.rounds``; bets and their money in ``tables.services.bets``
and ``wallets.services``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q


def default_paytable() -> dict[str, Any]:
    from tables.engine import DEFAULT_PAYTABLE

    return DEFAULT_PAYTABLE.to_dict()


def default_unavailable_after() -> dict[str, int]:
    from tables.engine import DEFAULT_UNAVAILABLE_AFTER

    return dict(DEFAULT_UNAVAILABLE_AFTER)


def default_limits() -> dict[str, dict[str, str]]:
    """Every bet type offered, 1.00 – 5,000.00 (side bets 1.00 – 500.00)."""
    from tables.engine import BET_TYPES

    main = {"player", "banker", "tie"}
    return {t: {"min": "1.00", "max": "5000.00" if t in main else "500.00"} for t in BET_TYPES}


class Variant(models.Model):
    """A ruleset operators attach to tables: decks, paytable, limits, bet availability."""

    name = models.CharField(max_length=60, unique=True)
    decks = models.PositiveSmallIntegerField(default=8)
    cut_min = models.PositiveSmallIntegerField(default=14, help_text="Fewest cards behind the cut card.")
    cut_max = models.PositiveSmallIntegerField(default=26, help_text="Most cards behind the cut card.")
    paytable = models.JSONField(default=default_paytable)
    # {bet_type: {"min": "1.00", "max": "500.00"}}; a type absent here is not offered.
    limits = models.JSONField(default=default_limits)
    pb_difference_limit = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("5000.00"))
    # {bet_type: last shoe round in which it may be placed}
    unavailable_after = models.JSONField(default=default_unavailable_after)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(decks__gte=1, decks__lte=8), name="variant_decks_1_to_8"),
            models.CheckConstraint(
                condition=Q(cut_min__gte=1, cut_max__gte=models.F("cut_min")), name="variant_cut_range"
            ),
            models.CheckConstraint(condition=Q(pb_difference_limit__gte=0), name="variant_pb_limit_not_negative"),
        ]

    def __str__(self) -> str:
        return self.name

    def engine_paytable(self):  # noqa: ANN201 - engine type, imported lazily
        from tables.engine import Paytable

        return Paytable.from_dict(self.paytable)

    def engine_limits(self):  # noqa: ANN201
        from tables.engine import Limits

        return Limits.from_dict(
            {
                "per_type": self.limits,
                "pb_difference": str(self.pb_difference_limit),
                "unavailable_after": self.unavailable_after,
            }
        )


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=60, unique=True)
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="tables")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    status_reason = models.CharField(max_length=200, blank=True)
    betting_seconds = models.PositiveSmallIntegerField(default=15)
    deal_interval_ms = models.PositiveIntegerField(default=800, help_text="Pause between two cards while dealing.")
    result_seconds = models.PositiveSmallIntegerField(
        default=5, help_text="How long a result stays before the next round."
    )
    settle_delay_ms = models.PositiveIntegerField(
        default=500,
        validators=[MaxValueValidator(10_000)],
        help_text="Pause between announcing a result and paying it, so the result reaches every browser at "
        "the table before thousands of personal settlements compete with it.",
    )
    # When the ticker must next look at this table (a deadline in the database, not in the scheduler).
    next_action_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(betting_seconds__gte=1), name="table_betting_seconds_positive"),
            models.CheckConstraint(condition=Q(settle_delay_ms__lte=10_000), name="table_settle_delay_at_most_10s"),
        ]

    def __str__(self) -> str:
        return self.name


class Shoe(models.Model):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField()
    # tables.engine.ShoeState.to_dict(): order, position, burn, cut index, round number.
    state = models.JSONField()
    # Secret until the shoe is finished; only the commitment is public before.
    server_seed = models.CharField(max_length=128)
    commitment = models.CharField(max_length=64)
    algorithm = models.CharField(max_length=16, default="v1")
    burn_card = models.CharField(max_length=2, blank=True)
    burn_count = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="shoe_number_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(finished_at__isnull=True), name="shoe_one_active_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} shoe {self.number}"

    @property
    def revealed_seed(self) -> str | None:
        return self.server_seed if self.finished_at else None


class Round(models.Model):
    class State(models.TextChoices):
        BETTING = "betting", "Betting"
        CLOSED = "closed", "Closed"
        DEALING = "dealing", "Dealing"
        RESULT = "result", "Result"
        SETTLED = "settled", "Settled"
        PAUSED = "paused", "Paused"
        CANCELLED = "cancelled", "Cancelled"

    FINAL_STATES = (State.SETTLED, State.CANCELLED)

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField(help_text="Round number within the shoe, from 1.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.BETTING)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    # When the window actually closed (closes_at → closed_at is the scheduler's lateness).
    closed_at = models.DateTimeField(null=True, blank=True)
    dealing_started_at = models.DateTimeField(null=True, blank=True)
    result_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # Cards as dealt, persisted before each is announced:
    # [{"hand": "player", "card": "5H", "position": 1}, ...] (position 1..6 in deal order)
    cards = models.JSONField(default=list, blank=True)
    player_total = models.PositiveSmallIntegerField(null=True, blank=True)
    banker_total = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.CharField(max_length=6, blank=True)
    flags = models.JSONField(null=True, blank=True)
    is_last_of_shoe = models.BooleanField(default=False)
    # While paused: the state to go back to on resume.
    paused_from = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=200, blank=True, help_text="Why it was paused or cancelled.")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="round_number_unique_per_shoe"),
            models.UniqueConstraint(
                fields=["table"],
                condition=~Q(state__in=["settled", "cancelled"]),
                name="round_one_live_per_table",
            ),
            models.CheckConstraint(
                condition=Q(player_total__isnull=True) | Q(player_total__lte=9, banker_total__lte=9),
                name="round_totals_0_to_9",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} · shoe {self.shoe.number} · round {self.number}"


class BetPlacement(models.Model):
    """One confirmed batch of bets (all or nothing) and its idempotency record."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bet_placements")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="placements")
    idempotency_key = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the canonical request body.")
    mode = models.CharField(max_length=14)
    stake_transaction = models.ForeignKey(
        "wallets.LedgerTransaction", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    response = models.JSONField(help_text="The first answer, returned again on replay.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "idempotency_key"], name="placement_idempotency_key_unique"),
        ]

    def __str__(self) -> str:
        return f"placement {self.idempotency_key} by {self.user}"


class Bet(models.Model):
    class Mode(models.TextChoices):
        TRADITIONAL = "traditional", "Traditional"
        NO_COMMISSION = "no_commission", "No commission"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        WON = "won", "Won"
        LOST = "lost", "Lost"
        PUSH = "push", "Push"
        REFUNDED = "refunded", "Refunded"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bets")
    placement = models.ForeignKey(BetPlacement, on_delete=models.PROTECT, related_name="bets")
    type = models.CharField(max_length=16)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    mode = models.CharField(max_length=14, choices=Mode.choices, default=Mode.TRADITIONAL)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    # What the player got back (stake + winnings, the stake on a push, 0 on a loss).
    payout = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    settlement_transaction = models.ForeignKey(
        "wallets.LedgerTransaction", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    placed_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-placed_at", "-id"]
        indexes = [
            models.Index(fields=["user", "-placed_at"], name="bet_user_recent"),
            models.Index(fields=["round", "user"], name="bet_round_user"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="bet_amount_positive"),
            models.CheckConstraint(
                condition=(Q(status="open", payout__isnull=True) | (~Q(status="open") & Q(payout__gte=0))),
                name="bet_payout_set_once_settled",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.amount} ({self.status})"
