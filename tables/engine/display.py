"""What a table shows next to its bets: payout labels from a paytable, chip denominations from limits.

Labels use only digits and signs ("0.95:1", "7:2", "1:1 · 6 → 1:2"), so they read the same in every language.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Final

from .bets import BET_TYPES, check_bet_type, check_mode
from .payouts import Paytable

#: The denominations a chip rack is chosen from (whole units, as casino chips are).
CHIP_SERIES: Final[tuple[int, ...]] = (1, 5, 10, 25, 100, 500, 1_000, 5_000, 10_000, 25_000, 100_000)
RACK_SIZE: Final = 6


def odds_label(odds: Decimal) -> str:
    """``x`` of "x:1" as a casino writes it: 1 → "1:1", 7/2 → "7:2", 1/2 → "1:2", 0.95 → "0.95:1"."""
    ratio = Fraction(odds)
    if ratio.denominator == 1:
        return f"{ratio.numerator}:1"
    if ratio.denominator <= 4:
        return f"{ratio.numerator}:{ratio.denominator}"
    return f"{odds.normalize():f}:1"


def _bonus_label(paytable: Paytable) -> str:
    best = max((odds for _margin, odds in paytable.bonus_margins), default=paytable.bonus_natural)
    low = min([paytable.bonus_natural, *(odds for _margin, odds in paytable.bonus_margins)])
    return f"{odds_label(low)} – {odds_label(best)}"


def payout_label(bet_type: str, paytable: Paytable, mode: str = "traditional") -> str:
    """The payout a bet spot shows for ``mode`` (which changes only the Banker bet)."""
    check_bet_type(bet_type)
    check_mode(mode)
    if bet_type == "banker" and mode == "no_commission":
        return f"{odds_label(paytable.banker_no_commission)} · 6 → {odds_label(paytable.banker_no_commission_six)}"
    if bet_type in ("player_bonus", "banker_bonus"):
        return _bonus_label(paytable)
    if bet_type == "lucky_six":
        return f"{odds_label(paytable.lucky_six_two_cards)} / {odds_label(paytable.lucky_six_three_cards)}"
    return odds_label(getattr(paytable, bet_type))


def payout_labels(paytable: Paytable) -> dict[str, dict[str, str]]:
    """``{bet_type: {mode: label}}`` for every bet type."""
    return {t: {m: payout_label(t, paytable, m) for m in ("traditional", "no_commission")} for t in BET_TYPES}


def chip_denominations(per_type: Mapping[str, tuple[Decimal, Decimal]]) -> list[int]:
    """Up to six chips for a table's limits: from the smallest minimum up, none above the largest maximum.

    A table of 1 – 5,000 gets 1, 5, 10, 25, 100, 500; one of 100 – 50,000 gets 100, 500, 1K, 5K, 10K, 25K.
    """
    if not per_type:
        return list(CHIP_SERIES[:RACK_SIZE])
    low = min(lo for lo, _hi in per_type.values())
    high = max(hi for _lo, hi in per_type.values())
    usable = [c for c in CHIP_SERIES if c <= high]
    start = next((i for i, c in enumerate(usable) if c >= low), None)
    if start is None:  # every chip is below the minimum: the largest few still add up to it
        return usable[-RACK_SIZE:] or [CHIP_SERIES[0]]
    rack = usable[start : start + RACK_SIZE]
    if len(rack) < RACK_SIZE:  # a narrow range: fill with smaller chips rather than show a short rack
        rack = usable[max(0, len(usable) - RACK_SIZE) :]
    return rack
