"""Tables: where rounds are played, each on a variant, with its own pace, opening hours and narrower limits.

:class:`Table` holds its status, pace and live-dealer settings; :class:`TableLimit` rows narrow its variant's
limits per bet type. ``Table.terms()`` is what a round at the table opens with.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from auditlog.registry import auditlog
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from baccarat_site import money
from tables import engine
from tables.engine.bets import BET_TYPES as _BET_TYPES
from tables.labels import BetType
from tables.models.variants import Variant, odds_text

#: A table's pace, (least, most) an operator may set (Table's validators). The database holds the same upper
#: bounds and looser lower ones (a 1 s window, 0 ms between cards, 0 s after the result): the timings tests
#: drive tables at. The lower bounds keep a table playable: a window a player can bet in, cards a browser can
#: show one by one, a result that can be read.
PACE: dict[str, tuple[int, int]] = {
    "betting_seconds": (5, 120),
    "deal_interval_ms": (100, 10_000),
    "result_seconds": (1, 60),
    "settle_delay_ms": (0, 10_000),
    "dealer_timeout_seconds": (10, 600),
}


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"
        RETIRED = "retired", "Retired"

    class CloseAfter(models.TextChoices):
        """A close an operator asked for, waiting for the end of the current round or shoe."""

        NONE = "", "–"
        ROUND = "round", "End of the current round"
        SHOE = "shoe", "End of the current shoe"

    class ClosedBy(models.TextChoices):
        """Who closed a closed table: an operator (it stays closed) or its opening hours (it reopens by itself)."""

        NONE = "", "–"
        OPERATOR = "operator", "Operator"
        HOURS = "hours", "Opening hours"

    class Dealing(models.TextChoices):
        """Where a table's cards come from (``tables.services.dealing``): the server's shuffled shoe, or a live
        dealer scanning a physical shoe at the dealer's console."""

        SHOE = "shoe", "Server shoe"
        LIVE = "live", "Live dealer"

    name = models.CharField(max_length=60, unique=True)
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="tables")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    # The operator's own words (or a fault's text) for the status: internal, for the audit trail and the admin;
    # players are shown a fixed public message instead (tables.selectors.tables.public_status).
    status_reason = models.CharField("internal reason", max_length=200, blank=True)
    close_after = models.CharField(max_length=5, choices=CloseAfter.choices, default="", blank=True)
    closed_by = models.CharField(max_length=8, choices=ClosedBy.choices, default="", blank=True)
    opens_at = models.TimeField(
        "opens at (UTC)",
        null=True,
        blank=True,
        help_text="Daily opening hours in UTC, with “closes at”: outside them the table closes at the end of its "
        "round and reopens when they begin. Both empty: always open. A window may run past midnight (22:00–06:00).",
    )
    closes_at = models.TimeField("closes at (UTC)", null=True, blank=True)
    pb_difference_limit = models.DecimalField(
        "Player/Banker difference limit at this table",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Empty: the variant's. Only lower than the variant's.",
    )
    # A table's pace. The validators (the admin's form, full_clean) give operators a playable range; the
    # database keeps the hard bounds, which also let tests drive a table fast (a 1 s window, cards 0 ms apart,
    # no pause after the result). See PACE.
    betting_seconds = models.PositiveSmallIntegerField(
        default=15,
        validators=[MinValueValidator(PACE["betting_seconds"][0]), MaxValueValidator(PACE["betting_seconds"][1])],
        help_text="How long the betting window stays open: 5 to 120 seconds.",
    )
    deal_interval_ms = models.PositiveIntegerField(
        default=800,
        validators=[MinValueValidator(PACE["deal_interval_ms"][0]), MaxValueValidator(PACE["deal_interval_ms"][1])],
        help_text="Pause between two cards while dealing: 100 to 10,000 ms.",
    )
    result_seconds = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(PACE["result_seconds"][0]), MaxValueValidator(PACE["result_seconds"][1])],
        help_text="How long a result stays before the next round: 1 to 60 seconds.",
    )
    settle_delay_ms = models.PositiveIntegerField(
        default=500,
        validators=[MinValueValidator(PACE["settle_delay_ms"][0]), MaxValueValidator(PACE["settle_delay_ms"][1])],
        help_text="Pause between announcing a result and paying it, so the result reaches every browser at "
        "the table before thousands of personal settlements compete with it: 0 to 10,000 ms.",
    )
    # Live dealing (tables.services.dealing). The choice is made while the table is closed (``clean``).
    dealing = models.CharField(
        max_length=4,
        choices=Dealing.choices,
        default=Dealing.SHOE,
        help_text="Server shoe: the server shuffles and deals. Live dealer: a dealer scans a physical shoe at the "
        "dealer's console (/dealer/). Changed only while the table is closed.",
    )
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="dealt_tables",
        verbose_name="dealer on shift",
        help_text="Live tables: the staff member in the Dealers group now at the table (a dealer takes the shift "
        "from the console too).",
    )
    video_url = models.URLField(
        "video (HLS)",
        max_length=500,
        blank=True,
        help_text="Live tables: the dealer's video as an HLS playlist (…/index.m3u8), shown above the felt. Empty: "
        "no video.",
    )
    dealer_timeout_seconds = models.PositiveSmallIntegerField(
        "silent dealer after (seconds)",
        default=60,
        validators=[
            MinValueValidator(PACE["dealer_timeout_seconds"][0]),
            MaxValueValidator(PACE["dealer_timeout_seconds"][1]),
        ],
        help_text="Live tables: when no card is scanned this long after betting closes (or after the last card), "
        "the round pauses and a supervisor is called: 10 to 600 seconds.",
    )
    # The public code of why a paused table is paused (tables.labels.STATUS_NOTICES): "" is plain "paused",
    # "supervisor" is a live table waiting for its supervisor.
    pause_notice = models.CharField(max_length=12, blank=True)
    # When the dealer's console last went away while its table was live (None: connected, or never was);
    # the ticker pauses a round whose console stays away (tables.services.dealing.CONSOLE_GRACE_SECONDS).
    console_lost_at = models.DateTimeField(null=True, blank=True)
    # When the ticker must next look at this table (a deadline in the database, not in the scheduler).
    next_action_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(betting_seconds__gte=1, betting_seconds__lte=PACE["betting_seconds"][1]),
                name="table_betting_seconds_1_to_120",
            ),
            models.CheckConstraint(
                condition=Q(deal_interval_ms__lte=PACE["deal_interval_ms"][1]), name="table_deal_interval_at_most_10s"
            ),
            models.CheckConstraint(
                condition=Q(result_seconds__lte=PACE["result_seconds"][1]), name="table_result_seconds_at_most_60"
            ),
            models.CheckConstraint(condition=Q(settle_delay_ms__lte=10_000), name="table_settle_delay_at_most_10s"),
            models.CheckConstraint(
                condition=Q(status__in=["open", "paused", "closed", "retired"]), name="table_status_known"
            ),
            models.CheckConstraint(condition=Q(close_after__in=["", "round", "shoe"]), name="table_close_after_known"),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True, closes_at__isnull=True)
                | (Q(opens_at__isnull=False, closes_at__isnull=False) & ~Q(opens_at=models.F("closes_at"))),
                name="table_hours_both_or_neither",
            ),
            models.CheckConstraint(
                condition=Q(pb_difference_limit__isnull=True) | Q(pb_difference_limit__gte=0),
                name="table_pb_limit_not_negative",
            ),
            models.CheckConstraint(condition=Q(dealing__in=["shoe", "live"]), name="table_dealing_known"),
            models.CheckConstraint(
                condition=Q(dealer_timeout_seconds__gte=1, dealer_timeout_seconds__lte=600),
                name="table_dealer_timeout_at_most_600s",
            ),
        ]
        permissions = [
            ("deal_table", "Can deal a live table from the dealer's console"),
            ("supervise_table", "Can resume or void a live table's round as its supervisor"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_live(self) -> bool:
        return self.dealing == self.Dealing.LIVE

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if (self.opens_at is None) != (self.closes_at is None):
            errors["closes_at"] = "Give both the opening and the closing time, or neither."
        elif self.opens_at is not None and self.opens_at == self.closes_at:
            errors["closes_at"] = "The closing time must differ from the opening time (empty both: always open)."
        variant = self.variant if self.variant_id else None
        if self.pk is not None:
            before = Table.objects.filter(pk=self.pk).values("dealing", "status").first()
            if (
                before is not None
                and before["dealing"] != self.dealing
                and before["status"] not in (self.Status.CLOSED, self.Status.RETIRED)
            ):
                errors["dealing"] = "Close the table first: how a table is dealt changes only while it is closed."
        if (
            variant is not None
            and self.pb_difference_limit is not None
            and self.pb_difference_limit > variant.pb_difference_limit
        ):
            errors["pb_difference_limit"] = (
                f"A table may only narrow its variant's limits: the variant's Player/Banker difference limit is "
                f"{variant.pb_difference_limit}."
            )
        if errors:
            raise ValidationError(errors)

    @property
    def has_hours(self) -> bool:
        return self.opens_at is not None and self.closes_at is not None

    def within_hours(self, now: datetime) -> bool:
        """Whether ``now`` is inside the table's daily UTC opening hours (always, when it has none)."""
        if self.opens_at is None or self.closes_at is None:
            return True
        at = now.astimezone(UTC).time()
        if self.opens_at < self.closes_at:
            return self.opens_at <= at < self.closes_at
        return at >= self.opens_at or at < self.closes_at  # a window past midnight

    def next_opening(self, now: datetime) -> datetime | None:
        """When the opening hours next begin after ``now`` (None without hours)."""
        if self.opens_at is None:
            return None
        now = now.astimezone(UTC)
        opening = datetime.combine(now.date(), self.opens_at, tzinfo=UTC)
        return opening if opening > now else opening + timedelta(days=1)

    def limits_dict(self) -> dict[str, Any]:
        """The variant's limits narrowed by this table's own (``TableLimit`` rows, ``pb_difference_limit``), in
        the engine's ``Limits.to_dict()`` shape. Narrowing only: a row that would widen, or leave no stake
        between its minimum and maximum, is ignored for that bet."""
        limits = self.variant.limits_dict()
        per_type = limits["per_type"]
        for row in self.limits.all() if self.pk else []:
            base = per_type.get(row.bet_type)
            if base is None:
                continue
            low = max(Decimal(base["min"]), row.min_stake) if row.min_stake is not None else Decimal(base["min"])
            high = min(Decimal(base["max"]), row.max_stake) if row.max_stake is not None else Decimal(base["max"])
            if low <= high:
                per_type[row.bet_type] = {"min": odds_text(low), "max": odds_text(high)}
        if self.pb_difference_limit is not None:
            limits["pb_difference"] = str(min(Decimal(limits["pb_difference"]), self.pb_difference_limit))
        return limits

    def terms(self, decks: int | None = None) -> dict[str, Any]:
        """What a round at this table opens with and keeps: the variant's paytable and this table's limits,
        offering only the bets that can win with ``decks``, the decks of the shoe being dealt (a shoe keeps its
        deck count when an operator switches the table to a variant with more or fewer decks mid-shoe: a
        one-deck shoe never offers Perfect Pair, whatever the variant says now). None: the variant's decks."""
        limits = self.limits_dict()
        if decks is not None:
            for bet_type in self.variant.bets_that_never_win(limits["per_type"], decks):
                del limits["per_type"][bet_type]
                limits["unavailable_after"].pop(bet_type, None)
        return {"paytable": self.variant.paytable_dict(), "limits": limits}

    def engine_limits(self) -> engine.Limits:
        return engine.Limits.from_dict(self.limits_dict())


class TableLimit(models.Model):
    """A table's own limits for one bet type: only narrower than its variant's (a higher minimum, a lower maximum)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limits")
    bet_type = models.CharField(max_length=16, choices=BetType.choices)
    min_stake = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(money.CENT)],
        help_text="Empty: the variant's minimum.",
    )
    max_stake = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(money.CENT)],
        help_text="Empty: the variant's maximum.",
    )

    class Meta:
        ordering = ["table", "id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "bet_type"], name="table_limit_once"),
            models.CheckConstraint(condition=Q(bet_type__in=_BET_TYPES), name="table_limit_known_type"),
            models.CheckConstraint(
                condition=Q(min_stake__isnull=True) | Q(min_stake__gt=0), name="table_limit_min_positive"
            ),
            models.CheckConstraint(
                condition=Q(min_stake__isnull=True)
                | Q(max_stake__isnull=True)
                | Q(max_stake__gte=models.F("min_stake")),
                name="table_limit_min_le_max",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.bet_type}"

    def clean(self) -> None:
        """Refuse a row that widens the variant's limits, or leaves no stake allowed."""
        if self.min_stake is None and self.max_stake is None:
            raise ValidationError("Give a minimum, a maximum or both (or delete the row).")
        try:
            variant = self.table.variant
        except ObjectDoesNotExist:  # no table or variant yet: their own fields report it
            return
        if not self.bet_type:
            return
        base = variant.limits_dict()["per_type"].get(self.bet_type)
        if base is None:
            raise ValidationError({"bet_type": f"The variant “{variant}” does not offer this bet."})
        low, high = Decimal(base["min"]), Decimal(base["max"])
        errors: dict[str, str] = {}
        if self.min_stake is not None and self.min_stake < low:
            errors["min_stake"] = f"A table may only narrow its variant's limits: the minimum may not be below {low}."
        if self.max_stake is not None and self.max_stake > high:
            errors["max_stake"] = f"A table may only narrow its variant's limits: the maximum may not be above {high}."
        if not errors and (self.min_stake or low) > (self.max_stake or high):
            errors["max_stake"] = "The maximum cannot be below the minimum."
        if errors:
            raise ValidationError(errors)


# Audited row by row, like the variants (tables.models.variants); the ticker's own bookkeeping is not.
auditlog.register(Table, exclude_fields=["next_action_at", "console_lost_at"])
auditlog.register(TableLimit)
