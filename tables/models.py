"""Tables, variants, shoes, rounds and bets.

The rules live in ``tables.engine`` (plain Python); these rows persist what
the engine decides. Round transitions are compare-and-set updates in
``tables.services.transitions`` (stepped by ``tables.services.ticker``, operated by
``tables.services.controls``); bets in ``tables.services.placement``; their money in
``tables.services.settlement`` and ``wallets.services``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from auditlog.registry import auditlog
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import IntegerField, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone

from baccarat_site import money
from tables import engine
from tables.engine.bets import BET_TYPES as _BET_TYPES
from tables.engine.payouts import DEFAULT_PAYTABLE, Paytable
from tables.labels import BetType


def default_paytable() -> dict[str, Any]:
    return DEFAULT_PAYTABLE.to_dict()


def default_unavailable_after() -> dict[str, int]:
    return dict(engine.DEFAULT_UNAVAILABLE_AFTER)


def default_limits() -> dict[str, dict[str, str]]:
    """Every bet type offered, 1.00 – 5,000.00 (side bets 1.00 – 500.00)."""
    main = {"player", "banker", "tie"}
    return {t: {"min": "1.00", "max": "5000.00" if t in main else "500.00"} for t in _BET_TYPES}


#: Paytable entries (odds x of "x:1") stored as typed fields ``pays_<name>``: the engine's Paytable fields.
PAYTABLE_FIELDS = tuple(f.name for f in dataclass_fields(Paytable) if f.name != "bonus_margins")
#: Player/Banker Bonus: the non-natural winning margins a paytable may pay (RULES: 4 to 9).
BONUS_MARGINS = (4, 5, 6, 7, 8, 9)
_DEFAULT_PAYS = {name: str(getattr(DEFAULT_PAYTABLE, name)) for name in PAYTABLE_FIELDS}
_DEFAULT_MARGINS = {margin: str(odds) for margin, odds in DEFAULT_PAYTABLE.bonus_margins}
_PAYS_HELP = {
    "player": "Player pays x:1 (RULES: 1).",
    "banker": "Banker in Traditional mode pays x:1: 0.95 is a 5% commission.",
    "banker_no_commission": "Banker in No-Commission mode, any win but a 6.",
    "banker_no_commission_six": "Banker in No-Commission mode winning with 6 (RULES: 0.5, i.e. 1:2).",
    "tie": "Tie pays 8:1 or 9:1.",
    "player_natural": "7:2 is 3.5.",
    "banker_natural": "7:2 is 3.5.",
    "bonus_natural": "Player/Banker Bonus: a win with a natural.",
    "lucky_six_two_cards": "Lucky Six: Banker wins with 6 on two cards.",
    "lucky_six_three_cards": "Lucky Six: Banker wins with 6 on three cards.",
    "lucky_six_2": "2-Card Lucky Six.",
    "lucky_six_3": "3-Card Lucky Six.",
}


#: The largest stake a bet may carry (the API's ten digits, ``money.STAKE_PATTERN``), and so the largest
#: Player/Banker difference limit that means anything; numeric(12, 2) holds no more.
LARGEST_STAKE = Decimal("9999999999.99")
#: Tie's two settings. Each value is written as the database gives it back (numeric(7, 2): "9.00"), because a
#: select marks the option whose text equals the field's value: with ``Decimal(9)`` ("9") a stored 9:1 matched
#: no option, and the browser sent the first one back, 8:1.
TIE_ODDS = [(Decimal("8.00"), "8:1"), (Decimal("9.00"), "9:1")]


def as_stored(instance: models.Model) -> None:
    """Write every decimal of ``instance`` with its column's places ("12" as "12.00") when that changes no
    value, as the database gives it back: the audit trail (which compares the texts) then records a whole
    number typed in the admin as no change, or as "11.00 → 12.00", never "11.00 → 11"."""
    for field in instance._meta.concrete_fields:
        if isinstance(field, models.DecimalField) and field.decimal_places is not None:
            value = getattr(instance, field.attname)
            if isinstance(value, Decimal) and value.is_finite():
                try:
                    stored = value.quantize(Decimal(1).scaleb(-field.decimal_places))
                except ArithmeticError:
                    continue  # too many digits: the column refuses it
                if stored == value:
                    setattr(instance, field.attname, stored)


def _bet_name(bet_type: str) -> str:
    return str(BetType(bet_type).label) if bet_type in BetType.values else bet_type


def _odds_text(value: Any) -> str:
    """A decimal as stored in a round's terms: always two places ("8.00"), whether read or just typed."""
    return money.text(Decimal(str(value)))


def _odds_field(name: str) -> models.DecimalField:
    return models.DecimalField(
        f"{name.replace('_', ' ')} pays",
        max_digits=7,
        decimal_places=2,
        default=Decimal(_DEFAULT_PAYS[name]),
        validators=[MinValueValidator(money.CENT), MaxValueValidator(Decimal("1000"))],
        help_text=_PAYS_HELP.get(name, ""),
    )


def _margin_field(margin: int) -> models.DecimalField:
    return models.DecimalField(
        f"bonus, win by {margin}",
        max_digits=7,
        decimal_places=2,
        null=True,
        blank=True,
        default=Decimal(_DEFAULT_MARGINS[margin]),
        validators=[MinValueValidator(money.CENT), MaxValueValidator(Decimal("1000"))],
        help_text="Empty: a non-natural win by this margin loses the Bonus bet.",
    )


class Variant(models.Model):
    """A ruleset operators attach to tables: decks, paytable, the bets offered with their limits.

    The paytable is one typed field per entry (``pays_*``); the offered bet types and their limits are
    :class:`VariantBet` rows. Rounds copy both when they open (``Round.terms``), so an edit applies from
    the next round.
    """

    name = models.CharField(max_length=60, unique=True)
    decks = models.PositiveSmallIntegerField(default=8, validators=[MinValueValidator(1), MaxValueValidator(8)])
    cut_min = models.PositiveSmallIntegerField(
        default=14, validators=[MinValueValidator(1)], help_text="Fewest cards behind the cut card."
    )
    cut_max = models.PositiveSmallIntegerField(default=26, help_text="Most cards behind the cut card.")
    pb_difference_limit = models.DecimalField(
        "Player/Banker difference limit",
        max_digits=12,
        decimal_places=2,
        default=Decimal("5000.00"),
        validators=[MinValueValidator(money.CENT), MaxValueValidator(LARGEST_STAKE)],
        help_text="The most a player's Banker and Player stakes in one round may differ by; it is the binding "
        "maximum of both sides (500 on Player allows up to 1,000 on Banker at a 500 limit). At least the "
        "Player and Banker minimums, so that a minimum bet can be placed; at most 9,999,999,999.99, the largest "
        "stake a bet may carry.",
    )
    pays_player = _odds_field("player")
    pays_banker = _odds_field("banker")
    pays_banker_no_commission = _odds_field("banker_no_commission")
    pays_banker_no_commission_six = _odds_field("banker_no_commission_six")
    pays_tie = models.DecimalField(
        "tie pays",
        max_digits=7,
        decimal_places=2,
        default=TIE_ODDS[0][0],
        choices=TIE_ODDS,
        help_text=_PAYS_HELP["tie"],
    )
    pays_player_pair = _odds_field("player_pair")
    pays_banker_pair = _odds_field("banker_pair")
    pays_any_pair = _odds_field("any_pair")
    pays_perfect_pair = _odds_field("perfect_pair")
    pays_player_natural = _odds_field("player_natural")
    pays_banker_natural = _odds_field("banker_natural")
    pays_bonus_natural = _odds_field("bonus_natural")
    pays_bonus_margin_4 = _margin_field(4)
    pays_bonus_margin_5 = _margin_field(5)
    pays_bonus_margin_6 = _margin_field(6)
    pays_bonus_margin_7 = _margin_field(7)
    pays_bonus_margin_8 = _margin_field(8)
    pays_bonus_margin_9 = _margin_field(9)
    pays_lucky_six_two_cards = _odds_field("lucky_six_two_cards")
    pays_lucky_six_three_cards = _odds_field("lucky_six_three_cards")
    pays_lucky_six_2 = _odds_field("lucky_six_2")
    pays_lucky_six_3 = _odds_field("lucky_six_3")
    allow_player_advantage = models.BooleanField(
        default=False,
        help_text="Save a paytable that gives some bet a player advantage (a negative house edge). "
        "Without this tick such a paytable is refused.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(decks__gte=1, decks__lte=8), name="variant_decks_1_to_8"),
            models.CheckConstraint(
                condition=Q(cut_min__gte=1, cut_max__gte=models.F("cut_min")), name="variant_cut_range"
            ),
            # 0 refused every Player and Banker bet; the column's 12 digits cap it at the largest stake.
            models.CheckConstraint(condition=Q(pb_difference_limit__gt=0), name="variant_pb_limit_positive"),
            models.CheckConstraint(condition=Q(pays_tie__in=[8, 9]), name="variant_tie_pays_8_or_9"),
            models.CheckConstraint(
                condition=Q(**{f"pays_{name}__gt": 0 for name in PAYTABLE_FIELDS}),
                name="variant_pays_positive",
            ),
            models.CheckConstraint(
                condition=Q(
                    *[
                        Q(**{f"pays_bonus_margin_{m}__isnull": True}) | Q(**{f"pays_bonus_margin_{m}__gt": 0})
                        for m in BONUS_MARGINS
                    ]
                ),
                name="variant_bonus_margins_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        as_stored(self)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Refuse a cut-card range the shoe cannot use and a paytable with a player advantage (unless allowed)."""
        errors: dict[str, list[str]] = {}
        if self.cut_min is not None and self.cut_max is not None and self.cut_max < self.cut_min:
            errors["cut_max"] = ["The most cards behind the cut card cannot be fewer than the fewest."]
        if self.decks is not None and self.cut_max is not None and self.cut_max > self.decks * 52 // 4:
            errors["cut_max"] = [f"At most a quarter of the shoe ({self.decks * 52 // 4} cards) behind the cut card."]
        if not errors and not self.allow_player_advantage:
            try:
                advantage = self.player_advantages()
            except (TypeError, ValueError, ArithmeticError):
                advantage = {}  # field errors are reported by the fields themselves
            if advantage:
                worst = ", ".join(f"{name} ({float(edge):.4%})" for name, edge in advantage.items())
                errors["allow_player_advantage"] = [
                    f"This paytable gives the player an advantage on: {worst}. Lower those payouts, or tick "
                    "“allow player advantage” to save it anyway."
                ]
        if errors:
            raise ValidationError(errors)

    def offer_errors(self, offered: Mapping[str, Decimal | None]) -> dict[str, list[str]]:
        """What makes these offered bets unplayable with this variant's decks, paytable and difference limit.

        ``offered`` maps each offered bet type to its minimum stake. Refused: no bet at all; a bet that cannot
        win with this many decks (the engine's exact chance is 0, e.g. Perfect Pair from one deck); a
        Player/Banker difference limit below the Player or Banker minimum, which no bet on either could
        respect. Keys: ``"bets"`` and ``"pb_difference_limit"``. The admin's offered-bets formset and
        ``tables.services.variants.variant_create`` both ask it, as the rows and the variant are checked
        together (a database constraint sees one row at a time).
        """
        errors: dict[str, list[str]] = {}
        if not offered:
            errors["bets"] = ["Offer at least one bet: a variant without offered bets could take no bet at all."]
            return errors
        try:
            never = self.bets_that_never_win(offered)
        except (TypeError, ValueError, ArithmeticError):
            never = []  # decks or paytable invalid: their fields report it
        for bet_type in never:
            errors.setdefault("bets", []).append(
                f"{_bet_name(bet_type)} can never win with {self.decks} deck{'s' if self.decks != 1 else ''} "
                "(its exact chance is 0): remove it from the offered bets, or use more decks."
            )
        limit = self.pb_difference_limit
        if isinstance(limit, Decimal) and limit.is_finite():
            sides = [(low, t) for t in ("player", "banker") if isinstance(low := offered.get(t), Decimal)]
            if sides:
                minimum, side = max(sides)
                if limit < minimum:
                    errors["pb_difference_limit"] = [
                        f"The Player/Banker difference limit ({money.text(limit)}) is below the {_bet_name(side)} "
                        f"minimum ({money.text(minimum)}): no {_bet_name(side)} bet could be placed. Set it to at "
                        f"least {money.text(minimum)}."
                    ]
        return errors

    def bets_that_never_win(self, bet_types: Iterable[str], decks: int | None = None) -> list[str]:
        """Those of ``bet_types`` whose exact chance of winning is 0 for this paytable and ``decks`` (by default
        this variant's deck count; a round asks with its shoe's, which keeps its decks when the variant changes)."""
        never = _never_winning(decks or self.decks, self.engine_paytable())
        return [t for t in sorted(bet_types, key=_BET_TYPES.index) if t in never]

    def player_advantages(self) -> dict[str, Any]:
        """Bets whose exact house edge for this deck count and paytable is negative: {bet: edge}."""
        return {name: edge for name, edge in engine.house_edges(self.decks, self.engine_paytable()).items() if edge < 0}

    def paytable_dict(self) -> dict[str, Any]:
        """The paytable in the engine's ``Paytable.to_dict()`` shape."""
        out: dict[str, Any] = {name: _odds_text(getattr(self, f"pays_{name}")) for name in PAYTABLE_FIELDS}
        out["bonus_margins"] = {
            str(m): _odds_text(getattr(self, f"pays_bonus_margin_{m}"))
            for m in BONUS_MARGINS
            if getattr(self, f"pays_bonus_margin_{m}") is not None
        }
        return out

    def limits_dict(self) -> dict[str, Any]:
        """Offered bets, their limits and cut-offs in the engine's ``Limits.to_dict()`` shape."""
        rows = sorted(self.bets.all() if self.pk else [], key=lambda row: _BET_TYPES.index(row.bet_type))
        return {
            "per_type": {
                row.bet_type: {"min": _odds_text(row.min_stake), "max": _odds_text(row.max_stake)} for row in rows
            },
            "pb_difference": str(self.pb_difference_limit),
            "unavailable_after": {row.bet_type: row.last_shoe_round for row in rows},
        }

    def terms(self) -> dict[str, Any]:
        """What a round opens with and keeps: the paytable and the limits, as plain JSON."""
        return {"paytable": self.paytable_dict(), "limits": self.limits_dict()}

    def engine_paytable(self) -> engine.Paytable:
        return engine.Paytable.from_dict(self.paytable_dict())

    def engine_limits(self) -> engine.Limits:
        return engine.Limits.from_dict(self.limits_dict())


class VariantBet(models.Model):
    """A bet type a variant offers, with its per-round minimum and maximum stake and its shoe-round cut-off."""

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="bets")
    bet_type = models.CharField(max_length=16, choices=BetType.choices)
    min_stake = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("1.00"), validators=[MinValueValidator(money.CENT)]
    )
    max_stake = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("500.00"), validators=[MinValueValidator(money.CENT)]
    )
    last_shoe_round = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="The last round of a shoe in which this bet may be placed; empty: every round.",
    )

    class Meta:
        ordering = ["variant", "id"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "bet_type"], name="variant_bet_once"),
            models.CheckConstraint(condition=Q(bet_type__in=_BET_TYPES), name="variant_bet_known_type"),
            models.CheckConstraint(condition=Q(min_stake__gt=0), name="variant_bet_min_positive"),
            models.CheckConstraint(condition=Q(max_stake__gte=models.F("min_stake")), name="variant_bet_min_le_max"),
            models.CheckConstraint(
                condition=Q(last_shoe_round__isnull=True) | Q(last_shoe_round__gte=1), name="variant_bet_cutoff"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.variant}: {self.bet_type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        as_stored(self)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        if self.min_stake is not None and self.max_stake is not None and self.max_stake < self.min_stake:
            raise ValidationError({"max_stake": "The maximum cannot be below the minimum."})


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
                per_type[row.bet_type] = {"min": _odds_text(low), "max": _odds_text(high)}
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

    #: ``algorithm`` of a live table's shoe: a physical shoe, scanned card by card (no seed, no commitment).
    LIVE = "live"

    @property
    def is_live(self) -> bool:
        return self.algorithm == self.LIVE

    @property
    def revealed_seed(self) -> str | None:
        return self.server_seed if self.finished_at else None

    @property
    def decks(self) -> int | None:
        """The decks this shoe was shuffled from: its state's ``decks`` (every dealt shoe records it, see
        ``ShoeState.to_dict``), else its card count / 52; None for a placeholder state without either. A shoe
        keeps its deck count when its table's variant changes (the next shoe takes the new one)."""
        return decks_of_state(self.state)


@lru_cache(maxsize=64)
def _never_winning(decks: int, paytable: Paytable) -> frozenset[str]:
    """The bets whose exact chance of winning is 0 with ``decks`` and ``paytable``. Pure, so kept per pair: every
    round that opens, and every table the lobby lists, asks it."""
    distributions = engine.bet_distributions(decks, paytable)
    return frozenset(name for name, dist in distributions.items() if not any(p for net, p in dist.items() if net > 0))


def decks_of_state(state: Any) -> int | None:
    """The deck count a shoe state records (``decks``, else ``len(cards) // 52``), None when it records none."""
    if not isinstance(state, dict):
        return None
    decks = state.get("decks")
    if decks is None and isinstance(state.get("cards"), list) and state["cards"]:
        decks = len(state["cards"]) // 52
    try:
        return int(decks) if decks is not None and int(decks) >= 1 else None
    except (TypeError, ValueError):
        return None


def shoe_decks_sql(state: str = "state") -> Any:
    """:attr:`Shoe.decks` as a SQL expression over the ``state`` path given (``"shoe__state"`` from a round):
    the state's ``decks`` as an integer, NULL when absent (the placeholder states of tests; a dealt shoe always
    records it). Lets a query read the deck count without loading the state's card order."""
    return Cast(KeyTextTransform("decks", state), IntegerField())


class BetMode(models.TextChoices):
    """How a Banker bet is paid (docs/rules.md): the same for every bet of one confirm."""

    TRADITIONAL = "traditional", "Traditional"
    NO_COMMISSION = "no_commission", "No commission"


class Round(models.Model):
    class Winner(models.TextChoices):
        PLAYER = "player", "Player"
        BANKER = "banker", "Banker"
        TIE = "tie", "Tie"

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
    # When the round last came back from a pause (tables.services.controls.table_resume): a live round's dealer
    # gets their whole time for the next card from then, not from a card scanned before the pause.
    resumed_at = models.DateTimeField(null=True, blank=True)
    result_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # The round's one payout or refund transaction (wallets), when its settlement paid anyone.
    settlement_transaction = models.ForeignKey(
        "wallets.LedgerTransaction", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # Cards as dealt, persisted before each is announced:
    # [{"hand": "player", "card": "5H", "position": 1, "dealt_at": "2026-…Z"}, ...] (position 1..6 in deal
    # order; dealt_at, the deal step's time in ISO 8601 UTC, is missing on rounds dealt before it was kept)
    cards = models.JSONField(default=list, blank=True)
    player_total = models.PositiveSmallIntegerField(null=True, blank=True)
    banker_total = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.CharField(max_length=6, blank=True, choices=Winner.choices)  # blank until the result
    flags = models.JSONField(null=True, blank=True)
    is_last_of_shoe = models.BooleanField(default=False)
    # A live table's round: the dealer on shift when its dealing started (the recall shows who dealt it).
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # While paused: the state to go back to on resume.
    paused_from = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=200, blank=True, help_text="Why it was paused or cancelled.")
    # The paytable and limits the round opened with (Variant.terms()): bets are checked and settled by
    # these, so an operator's edit to the variant applies from the next round and never to a confirmed bet.
    terms = models.JSONField(default=dict, blank=True)

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
            models.CheckConstraint(condition=Q(winner__in=["", "player", "banker", "tie"]), name="round_winner_known"),
            models.CheckConstraint(
                condition=Q(state__in=["betting", "closed", "dealing", "result", "settled", "paused", "cancelled"]),
                name="round_state_known",
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


class RiskAlert(models.Model):
    """Something on the floor a supervisor should look at, raised by ``tables.services.risk`` for one round.

    One row per (kind, round, player, linked player), whatever how often a round is scanned: the scan inserts
    with ``ON CONFLICT DO NOTHING`` against ``risk_alert_once``. Open until a staff member acknowledges it
    (``acknowledged_by``/``acknowledged_at``, with an optional note, audited).
    """

    class Kind(models.TextChoices):
        LARGE_BET = "large_bet", "Large bet"
        LARGE_WIN = "large_win", "Large win"
        EXPOSURE = "exposure", "Table exposure"
        LINKED_ACCOUNTS = "linked", "Linked accounts on Player and Banker"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="risk_alerts")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="risk_alerts")
    # The player (none for a table's exposure); for linked accounts, the one of the two with the lower id.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="risk_alerts"
    )
    # Linked accounts: the other account (the sentence in ``detail`` says who backed which side).
    other_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    detail = models.CharField("what happened", max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The acknowledging staff member's note.")

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("acknowledge_riskalert", "Can acknowledge risk alerts")]
        indexes = [
            models.Index(fields=["-created_at"], condition=Q(acknowledged_at__isnull=True), name="risk_alert_open"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "round", "user", "other_user"], nulls_distinct=False, name="risk_alert_once"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["large_bet", "large_win", "exposure", "linked"]), name="risk_alert_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(acknowledged_at__isnull=True, acknowledged_by__isnull=True)
                | Q(acknowledged_at__isnull=False, acknowledged_by__isnull=False),
                name="risk_alert_acknowledged_by_someone",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.detail}"

    @property
    def is_open(self) -> bool:
        return self.acknowledged_at is None


class SupervisorCall(models.Model):
    """A live table waiting for its supervisor (``tables.services.dealing``): the dealer pressed "Call supervisor",
    or the dealer went silent (no card in time) or the console disconnected mid-round. The table is paused while
    a call is open; the supervisor resumes or cancels (``resolution``), signed in as themselves, audited. At most
    one open call per table."""

    class Kind(models.TextChoices):
        CALLED = "called", "Dealer called"
        SILENT = "silent", "No card scanned in time"
        CONSOLE = "console", "Dealer's console disconnected"

    class Resolution(models.TextChoices):
        NONE = "", "–"
        RESUMED = "resumed", "Resumed"
        CANCELLED = "cancelled", "Round cancelled and refunded"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="supervisor_calls")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    called_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reason = models.CharField("what happened", max_length=200)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    resolution = models.CharField(max_length=9, choices=Resolution.choices, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The supervisor's note.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=Q(resolved_at__isnull=True), name="supervisor_call_one_open_per_table"
            ),
            models.CheckConstraint(condition=Q(kind__in=["called", "silent", "console"]), name="supervisor_call_kind"),
            models.CheckConstraint(
                condition=Q(resolved_at__isnull=True, resolution="")
                | Q(resolved_at__isnull=False, resolution__in=["resumed", "cancelled"]),
                name="supervisor_call_resolved_with_outcome",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.get_kind_display()}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None


# Configuration changes are audited row by row (who, when, before → after); operator actions that are not
# a plain save are recorded by the services with baccarat_site.audit.audit.
auditlog.register(Variant)
auditlog.register(VariantBet)
auditlog.register(Table, exclude_fields=["next_action_at", "console_lost_at"])
auditlog.register(TableLimit)


class ChatMessage(models.Model):
    """One message of a table's chat (``tables.services.chat``). Never edited; an operator's delete marks it
    (``deleted_at``/``deleted_by``, with the reason in the audit trail), so the admin still shows what was said."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages")
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("moderate_chat", "Can delete chat messages and mute players")]
        indexes = [
            models.Index(fields=["table", "-created_at"], condition=Q(deleted_at__isnull=True), name="chat_recent"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(deleted_at__isnull=True, deleted_by__isnull=True) | Q(deleted_at__isnull=False),
                name="chat_deleted_with_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:60]}"


class ChatMute(models.Model):
    """A player kept from writing in every table's chat until ``until`` (an operator's, audited). Lifted early by
    setting ``lifted_at``/``lifted_by``; a player is muted while any unlifted row runs."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_mutes")
    until = models.DateTimeField()
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["player", "-until"], name="chat_mute_player")]

    def __str__(self) -> str:
        return f"{self.player} muted until {self.until:%Y-%m-%d %H:%M} UTC"
