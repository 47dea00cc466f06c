"""Variants: the rulesets operators attach to tables (decks, cut card, paytable) and the bets they offer.

A variant's paytable is one typed field per entry (``pays_*``, built from the engine's ``Paytable``); its offered
bets and their limits are :class:`VariantBet` rows. ``Variant.terms()`` is what a round opens with and keeps
(``Round.terms``, :mod:`tables.models.rounds`); a table narrows the limits (:mod:`tables.models.tables`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields as dataclass_fields
from decimal import Decimal
from functools import lru_cache
from typing import Any

from auditlog.registry import auditlog
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from baccarat_site import money
from tables import engine
from tables.engine.bets import BET_TYPES as _BET_TYPES
from tables.engine.payouts import DEFAULT_PAYTABLE, Paytable
from tables.labels import BetType


# The defaults of the JSON columns that the typed ``pays_*`` fields and VariantBet rows replaced: migration 0001
# still names all three (``tables.models.default_paytable``…), so they stay, re-exported by the package.
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


def odds_text(value: Any) -> str:
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
        out: dict[str, Any] = {name: odds_text(getattr(self, f"pays_{name}")) for name in PAYTABLE_FIELDS}
        out["bonus_margins"] = {
            str(m): odds_text(getattr(self, f"pays_bonus_margin_{m}"))
            for m in BONUS_MARGINS
            if getattr(self, f"pays_bonus_margin_{m}") is not None
        }
        return out

    def limits_dict(self) -> dict[str, Any]:
        """Offered bets, their limits and cut-offs in the engine's ``Limits.to_dict()`` shape."""
        rows = sorted(self.bets.all() if self.pk else [], key=lambda row: _BET_TYPES.index(row.bet_type))
        return {
            "per_type": {
                row.bet_type: {"min": odds_text(row.min_stake), "max": odds_text(row.max_stake)} for row in rows
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


@lru_cache(maxsize=64)
def _never_winning(decks: int, paytable: Paytable) -> frozenset[str]:
    """The bets whose exact chance of winning is 0 with ``decks`` and ``paytable``. Pure, so kept per pair: every
    round that opens, and every table the lobby lists, asks it."""
    distributions = engine.bet_distributions(decks, paytable)
    return frozenset(name for name, dist in distributions.items() if not any(p for net, p in dist.items() if net > 0))


# Configuration changes are audited row by row (who, when, before → after); operator actions that are not
# a plain save are recorded by the services with baccarat_site.audit.audit.
auditlog.register(Variant)
auditlog.register(VariantBet)
