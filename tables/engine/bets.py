"""Bet types, betting modes and money helpers shared by the payout, limit and odds modules."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Final

#: Every bet type, in the order the casino lists them (docs/rules.md appendix).
BET_TYPES: Final[tuple[str, ...]] = (
    "player",
    "banker",
    "tie",
    "player_pair",
    "banker_pair",
    "any_pair",
    "perfect_pair",
    "player_natural",
    "banker_natural",
    "player_bonus",
    "banker_bonus",
    "lucky_six",
    "lucky_six_2",
    "lucky_six_3",
)

#: Betting modes; the mode only changes how a Banker bet is paid.
MODES: Final[tuple[str, ...]] = ("traditional", "no_commission")

CENT: Final = Decimal("0.01")


def check_bet_type(bet_type: str) -> str:
    if bet_type not in BET_TYPES:
        raise ValueError(f"unknown bet type: {bet_type!r}")
    return bet_type


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown betting mode: {mode!r} (one of {', '.join(MODES)})")
    return mode


def to_amount(value: object) -> Decimal | None:
    """``value`` as a money amount (finite, at most two decimal places), or None if it is not one.

    Decimals, ints and numeric strings are accepted; floats and bools are not (they are never exact money).
    """
    if isinstance(value, (bool, float)):
        return None
    if isinstance(value, Decimal):
        amount = value
    elif isinstance(value, int | str):
        try:
            amount = Decimal(value)
        except InvalidOperation:
            return None
    else:
        return None
    if not amount.is_finite():
        return None
    try:
        if amount != amount.quantize(CENT):
            return None
    except InvalidOperation:  # too many digits to quantize
        return None
    return amount.quantize(CENT)


def cents_down(amount: Decimal) -> Decimal:
    """``amount`` rounded down (toward zero) to the cent."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


def format_money(amount: Decimal) -> str:
    """American format with two decimals: ``1,234.00``."""
    return f"{amount:,.2f}"
