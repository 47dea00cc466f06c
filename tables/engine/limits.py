"""Table limits and bet availability (docs/rules.md "Limits" and the bet table's "Unavailable after" column).

``validate_bets`` is a pure function: the services call it under their lock with the round's confirmed
bets (``existing``) and the bets being placed (``new``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from baccarat_site.money import display, to_amount

from .bets import BET_TYPES

#: The two sides whose stakes the Player/Banker difference limit compares.
PB_SIDES: Final = ("player", "banker")

#: The last shoe round in which each side bet may be placed (docs/rules.md); types not listed are always open.
DEFAULT_UNAVAILABLE_AFTER: Final[dict[str, int]] = {
    "player_pair": 60,
    "banker_pair": 60,
    "any_pair": 50,
    "perfect_pair": 50,
    "player_natural": 50,
    "banker_natural": 50,
    "lucky_six": 50,
    "lucky_six_2": 50,
    "lucky_six_3": 50,
}


def bet_available(bet_type: str, shoe_round: int, unavailable_after: Mapping[str, int | None] | None = None) -> bool:
    """Whether ``bet_type`` may be placed in round ``shoe_round`` (1, 2, …) of the current shoe.

    ``unavailable_after`` maps a bet type to the last round it is offered in (None: the docs/rules.md defaults;
    a type missing from the mapping, or mapped to None, has no such limit). Unknown types are never available.
    """
    if bet_type not in BET_TYPES:
        return False
    table = DEFAULT_UNAVAILABLE_AFTER if unavailable_after is None else unavailable_after
    last = table.get(bet_type)
    return last is None or shoe_round <= int(last)


@dataclass(frozen=True)
class BetViolation:
    """Why a bet was refused. ``code`` is the API error code (docs/api.md)."""

    code: str
    bet_type: str | None
    detail: str
    #: The amount the refusal is measured against (the minimum, the maximum, the difference limit).
    limit: Decimal | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "bet_type": self.bet_type, "detail": self.detail}
        if self.limit is not None:
            out["limit"] = str(self.limit)
        return out


@dataclass(frozen=True)
class Limits:
    """A table's limits. A bet type absent from ``per_type`` is not offered at the table.

    ``pb_difference`` limits |Banker stake − Player stake| of one player in one round. When it is set it is the
    binding maximum of Player and Banker (a stake on one side raises what the other may take by as much); their
    per-type maximum then does not apply, only their minimum. None: no difference limit, per-type maxima apply.
    """

    per_type: Mapping[str, tuple[Decimal, Decimal]]
    pb_difference: Decimal | None = None
    unavailable_after: Mapping[str, int | None] = field(default_factory=lambda: dict(DEFAULT_UNAVAILABLE_AFTER))

    def __post_init__(self) -> None:
        cleaned: dict[str, tuple[Decimal, Decimal]] = {}
        for bet_type, (low, high) in self.per_type.items():
            if bet_type not in BET_TYPES:
                raise ValueError(f"limits for an unknown bet type: {bet_type!r}")
            lo, hi = to_amount(low), to_amount(high)
            if lo is None or hi is None or lo < 0 or hi < lo:
                raise ValueError(f"{bet_type}: limits must be amounts with 0 ≤ min ≤ max, not {low!r}–{high!r}")
            cleaned[bet_type] = (lo, hi)
        object.__setattr__(self, "per_type", cleaned)
        if self.pb_difference is not None:
            pb = to_amount(self.pb_difference)
            if pb is None or pb < 0:
                raise ValueError(f"pb_difference must be an amount ≥ 0, not {self.pb_difference!r}")
            object.__setattr__(self, "pb_difference", pb)
        object.__setattr__(
            self, "unavailable_after", {k: (None if v is None else int(v)) for k, v in self.unavailable_after.items()}
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_type": {t: {"min": str(lo), "max": str(hi)} for t, (lo, hi) in self.per_type.items()},
            "pb_difference": None if self.pb_difference is None else str(self.pb_difference),
            "unavailable_after": dict(self.unavailable_after),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Limits:
        """From to_dict()'s shape; per-type limits may also be ``[min, max]`` pairs."""
        per_type: dict[str, tuple[Decimal, Decimal]] = {}
        for bet_type, value in (data.get("per_type") or {}).items():
            if isinstance(value, Mapping):
                low, high = value["min"], value["max"]
            else:
                low, high = value
            per_type[bet_type] = (_amount(low), _amount(high))
        pb = data.get("pb_difference")
        unavailable = data.get("unavailable_after")
        return cls(
            per_type=per_type,
            pb_difference=None if pb is None else _amount(pb),
            unavailable_after=dict(DEFAULT_UNAVAILABLE_AFTER) if unavailable is None else dict(unavailable),
        )

    def offered(self, shoe_round: int) -> list[str]:
        """Bet types that may be placed in this shoe round, in BET_TYPES order."""
        return [t for t in BET_TYPES if t in self.per_type and bet_available(t, shoe_round, self.unavailable_after)]


def _amount(value: Any) -> Decimal:
    amount = to_amount(value if not isinstance(value, float) else str(value))
    if amount is None:
        raise ValueError(f"not a money amount: {value!r}")
    return amount


def validate_bets(
    new: Sequence[tuple[str, Decimal]],
    existing: Sequence[tuple[str, Decimal]],
    limits: Limits,
    shoe_round: int,
    personal_max: Decimal | None = None,
) -> list[BetViolation]:
    """Every reason the ``new`` bets may not be placed (empty: they may), given the round's ``existing`` bets.

    Checks, per new bet: unknown_bet_type, invalid_amount (≤ 0, more than two decimals, not a finite number),
    bet_unavailable (not offered at this table, or past its shoe-round limit); then per bet type, the round's
    total stake (existing + new) against below_min / above_max (for Player and Banker only the minimum when the
    table has a difference limit); then pb_difference_limit: |Banker − Player| of the round may not exceed it,
    unless the new bets narrow a difference that was already wider.

    ``personal_max`` is the player's personal maximum (docs/rules.md "Personal limits"): it caps the round's
    total on every bet type, Player and Banker included whatever the difference limit, and only ever lowers the
    table's maximum. A total above it is ``above_max`` with the personal maximum as its ``limit``.
    """
    violations: list[BetViolation] = []
    totals: dict[str, Decimal] = {}
    touched: list[str] = []
    for bet_type, raw in new:
        if bet_type not in BET_TYPES:
            violations.append(BetViolation("unknown_bet_type", bet_type, f"There is no bet type {bet_type!r}."))
            continue
        amount = to_amount(raw)
        if amount is None or amount <= 0:
            violations.append(
                BetViolation(
                    "invalid_amount", bet_type, f"A stake is a positive amount with at most two decimals, not {raw!r}."
                )
            )
            continue
        if bet_type not in limits.per_type or not bet_available(bet_type, shoe_round, limits.unavailable_after):
            violations.append(
                BetViolation("bet_unavailable", bet_type, f"{bet_type} cannot be placed in round {shoe_round}.")
            )
            continue
        totals[bet_type] = totals.get(bet_type, Decimal(0)) + amount
        if bet_type not in touched:
            touched.append(bet_type)
    if violations:
        return violations

    before: dict[str, Decimal] = {}
    for bet_type, raw in existing:
        amount = to_amount(raw)
        if amount is not None:
            before[bet_type] = before.get(bet_type, Decimal(0)) + amount

    for bet_type in touched:
        low, high = limits.per_type[bet_type]
        total = before.get(bet_type, Decimal(0)) + totals[bet_type]
        # Player and Banker: with a difference limit, the difference is their binding maximum (below).
        if bet_type in PB_SIDES and limits.pb_difference is not None:
            high = total
        if total < low:
            violations.append(
                BetViolation("below_min", bet_type, f"The minimum {bet_type} stake is {display(low)}.", low)
            )
        elif personal_max is not None and personal_max < high and total > personal_max:
            violations.append(
                BetViolation(
                    "above_max",
                    bet_type,
                    f"Your personal maximum stake on {bet_type} in a round is {display(personal_max)}"
                    f" (this would make it {display(total)}).",
                    personal_max,
                )
            )
        elif total > high:
            violations.append(
                BetViolation(
                    "above_max",
                    bet_type,
                    f"The maximum {bet_type} stake in a round is {display(high)}"
                    f" (this would make it {display(total)}).",
                    high,
                )
            )

    if limits.pb_difference is not None and ("player" in touched or "banker" in touched):
        zero = Decimal(0)
        old = abs(before.get("banker", zero) - before.get("player", zero))
        banker = before.get("banker", zero) + totals.get("banker", zero)
        player = before.get("player", zero) + totals.get("player", zero)
        diff = abs(banker - player)
        # A bet that narrows an (already too wide) difference is allowed; one that widens it past the limit is not.
        if diff > limits.pb_difference and diff > old:
            side = "banker" if "banker" in touched else "player"
            violations.append(
                BetViolation(
                    "pb_difference_limit",
                    side,
                    "The difference between Banker and Player stakes may be at most"
                    f" {display(limits.pb_difference)} (this would make it {display(diff)}).",
                    limits.pb_difference,
                )
            )
    return violations
