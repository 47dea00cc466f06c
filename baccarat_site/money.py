"""Money, in one place: amounts are ``Decimal`` values of whole cents.

Plain Python (no Django), so the engine, the wallets and the tables all use it.
Parsing is strict (a full match: ``"10\\n"`` is not an amount) and never goes
through a float; formatting has two forms, the API's ``"1234.00"`` and the
pages' ``"1,234.00"`` (docs/api.md, docs/rules.md).
"""

from __future__ import annotations

import re
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Final

CENT: Final = Decimal("0.01")
ZERO: Final = Decimal("0.00")

#: A stake as the API takes it: up to ten digits and at most two decimals (published in the API schema).
STAKE_PATTERN: Final = r"^[0-9]{1,10}(\.[0-9]{1,2})?$"
#: A wallet amount (deposits, refills): up to twelve digits, as numeric(14, 2) holds.
WALLET_PATTERN: Final = r"^[0-9]{1,12}(\.[0-9]{1,2})?$"
_PATTERNS: dict[str, re.Pattern[str]] = {}


def parse_amount(raw: str, pattern: str = STAKE_PATTERN) -> Decimal | None:
    """``raw`` as an amount if all of it matches ``pattern`` (digits, at most two decimals), else None."""
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = re.compile(pattern)
    if not isinstance(raw, str) or compiled.fullmatch(raw) is None:
        return None
    return Decimal(raw).quantize(CENT)


def to_amount(value: object) -> Decimal | None:
    """``value`` as an amount (finite, at most two decimal places), or None if it is not one.

    Decimals, ints and numeric strings are accepted; floats and bools are not (they are never exact money).
    """
    if isinstance(value, bool | float):
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


def cents(value: Decimal | int | str | None) -> Decimal:
    """A stored or summed amount to two places (None, an empty sum, is zero)."""
    return ZERO if value is None else Decimal(value).quantize(CENT)


def cents_down(amount: Decimal) -> Decimal:
    """``amount`` rounded down (toward zero) to the cent: how every payout is cut."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


def text(value: Decimal | int | str) -> str:
    """The API's form: two decimals, no grouping, e.g. ``"1234.00"``."""
    return f"{cents(value):.2f}"


def text_or_none(value: Decimal | int | str | None) -> str | None:
    """:func:`text`, keeping None (an amount not known yet, e.g. an open bet's payout)."""
    return None if value is None else text(value)


def display(value: Decimal | int | str, *, signed: bool = False) -> str:
    """The pages' form, the same in every language: grouped, two decimals, e.g. ``"1,234.00"``; ``signed``
    writes the sign of a movement too (``"+250.00"``, ``"-1,000.00"``)."""
    return f"{cents(value):+,.2f}" if signed else f"{cents(value):,.2f}"
