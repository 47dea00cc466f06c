"""Bets: a confirmed batch (:class:`BetPlacement`), its bets, and the outcome each kind of bet came to.

Placement (``tables.services.placement``) writes placements and bets; settlement (``tables.services.settlement``)
writes the outcomes, one per kind of bet on a round, which every bet of that kind reads through.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from tables import engine
from tables.engine.bets import BET_TYPES as _BET_TYPES
from tables.labels import BetType
from tables.models.rounds import Round


class BetMode(models.TextChoices):
    """How a Banker bet is paid (docs/rules.md): the same for every bet of one confirm."""

    TRADITIONAL = "traditional", "Traditional"
    NO_COMMISSION = "no_commission", "No commission"


class BetPlacement(models.Model):
    """One confirmed batch of bets (all or nothing) and its idempotency record."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bet_placements")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="placements")
    idempotency_key = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the canonical request body.")
    mode = models.CharField(max_length=14, choices=BetMode.choices)
    stake_transaction = models.ForeignKey(
        "wallets.LedgerTransaction", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    response = models.JSONField(help_text="The first answer, returned again on replay.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "idempotency_key"], name="placement_idempotency_key_unique"),
            models.CheckConstraint(condition=Q(mode__in=BetMode.values), name="placement_mode_known"),
        ]

    def __str__(self) -> str:
        return f"placement {self.idempotency_key} by {self.user}"


class BetStatus(models.TextChoices):
    """Where a bet stands: open until its round is settled or cancelled."""

    OPEN = "open", "Open"
    WON = "won", "Won"
    LOST = "lost", "Lost"
    PUSH = "push", "Push"
    REFUNDED = "refunded", "Refunded"


#: What one kind of bet on a settled or cancelled round can come to: every bet status but open (a bet without an
#: outcome is open).
OUTCOME_STATUSES = [(value, label) for value, label in BetStatus.choices if value != BetStatus.OPEN]


class BetOutcome(models.Model):
    """What one kind of bet (type, mode) came to on one round: every bet of that kind on that round has the
    same status and odds, whatever its amount, so the outcome is kept once, here. A bet's return is
    ``tables.engine.bet_return(amount, status, odds)`` in Python and ``tables.selectors.outcomes.bet_payout()``
    in SQL (the same rule).

    Written by settlement only (``tables.services.settlement``: at most 14 types × 2 modes a round, and only
    kinds that have bets), never by placement; immutable once written, and a round cannot become settled or
    cancelled while one of its bets has no outcome (both enforced by triggers, migration 0014).
    """

    Status = BetStatus

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="outcomes", db_index=False)
    type = models.CharField(max_length=16, choices=BetType.choices)
    mode = models.CharField(max_length=14, choices=BetMode.choices)
    status = models.CharField(max_length=9, choices=OUTCOME_STATUSES)
    # The x of "x:1" the engine gave a win (tables.engine.bet_outcome); 0 for lost, push and refunded.
    odds = models.DecimalField(max_digits=12, decimal_places=4, default=Decimal(0))

    class Meta:
        constraints = [
            # Its first column serves the round's lookups (and the bets' join): no index of the round's own.
            models.UniqueConstraint(fields=["round", "type", "mode"], name="bet_outcome_unique"),
            models.CheckConstraint(condition=Q(type__in=_BET_TYPES), name="bet_outcome_known_type"),
            models.CheckConstraint(condition=Q(mode__in=BetMode.values), name="bet_outcome_mode_known"),
            models.CheckConstraint(
                condition=Q(status__in=[value for value, _label in OUTCOME_STATUSES]), name="bet_outcome_status_known"
            ),
            models.CheckConstraint(
                condition=Q(odds__gte=0) & (Q(status="won") | Q(odds=0)), name="bet_outcome_odds_only_on_a_win"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.mode} on round {self.round_id}: {self.status} ({self.odds}:1)"


class BetManager(models.Manager["Bet"]):
    """Bets come with their :class:`BetOutcome` (none while open) in the same query."""

    def get_queryset(self) -> models.QuerySet[Bet]:
        return super().get_queryset().select_related("outcome")


class Bet(models.Model):
    """One confirmed bet. Its outcome is its kind's :class:`BetOutcome` on its round (``outcome``, joined on
    round, type and mode; no column): ``status`` ("open" without one), ``payout`` and ``settled_at`` read
    through, and the default manager selects the outcome with the bet. Filter on ``outcome__status``; sum
    payouts with ``tables.selectors.outcomes.bet_payout()``."""

    Mode = BetMode
    Status = BetStatus

    # Both are the first column of an index below (bet_round_user, bet_user_recent): no index of their own.
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bets", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bets", db_index=False)
    placement = models.ForeignKey(BetPlacement, on_delete=models.PROTECT, related_name="bets")
    type = models.CharField(max_length=16, choices=BetType.choices)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    mode = models.CharField(max_length=14, choices=BetMode.choices, default=BetMode.TRADITIONAL)
    placed_at = models.DateTimeField(auto_now_add=True)
    # The outcome of the bet's kind on its round, once settlement wrote it: no column of its own, a join on
    # (round, type, mode). The database keeps it there: a round becomes settled or cancelled only with an
    # outcome for every kind of bet on it (migration 0014's trigger).
    outcome = models.ForeignObject(
        BetOutcome,
        from_fields=["round", "type", "mode"],
        to_fields=["round", "type", "mode"],
        on_delete=models.DO_NOTHING,
        null=True,
        related_name="bets",
    )

    objects = BetManager()

    class Meta:
        ordering = ["-placed_at", "-id"]
        indexes = [
            models.Index(fields=["user", "-placed_at"], name="bet_user_recent"),
            models.Index(fields=["round", "user"], name="bet_round_user"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="bet_amount_positive"),
            models.CheckConstraint(condition=Q(type__in=_BET_TYPES), name="bet_known_type"),
            models.CheckConstraint(condition=Q(mode__in=BetMode.values), name="bet_mode_known"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.amount} ({self.status})"

    @property
    def the_outcome(self) -> BetOutcome | None:
        """The bet's outcome, or None while it is open (also when it was not selected with the bet)."""
        try:
            return self.outcome
        except BetOutcome.DoesNotExist:
            return None

    @property
    def status(self) -> str:
        outcome = self.the_outcome
        return BetStatus.OPEN.value if outcome is None else outcome.status

    @property
    def payout(self) -> Decimal | None:
        """What the bet got back (``tables.engine.bet_return``); None while open."""
        outcome = self.the_outcome
        if outcome is None:
            return None
        return engine.bet_return(self.amount, outcome.status, outcome.odds)

    @property
    def settled_at(self) -> datetime | None:
        """When its round was settled or cancelled (None while open)."""
        if self.the_outcome is None:
            return None
        return self.round.settled_at or self.round.cancelled_at

    @property
    def settlement_transaction_id(self) -> int | None:
        """The round's one ledger transaction, on a bet that returned something."""
        payout = self.payout
        return self.round.settlement_transaction_id if payout else None

    def get_status_display(self) -> str:
        return str(BetStatus(self.status).label)
