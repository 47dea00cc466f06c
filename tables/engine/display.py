"""What a table shows next to its bets: payout labels from a paytable, chip denominations from limits, and the
return to player and house edge as every page writes them.

Labels use only digits and signs ("0.95:1", "7:2", "1:1 · 6 → 1:2"), so they read the same in every language.
"""

from __future__ import annotations

import math
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


def _percent_units(units: int, places: int) -> str:
    """``units`` hundredths-of-a-percent-style integer (``places`` decimals) written as "98.98%" / "-0.50%"."""
    sign = "-" if units < 0 else ""
    whole, part = divmod(abs(units), 10**places)
    return f"{sign}{whole}.{part:0{places}d}%" if places else f"{sign}{whole}%"


def rtp_text(house_edge: Fraction, places: int = 2) -> str:
    """The return to player (1 − ``house_edge``) as a percentage **truncated** to ``places`` decimals, never
    rounded up: a return is not shown above what it is (98.98825…% → "98.98%", not "98.99%"). A return that
    is exact at ``places`` decimals is shown exactly. Every page and ``manage.py odds`` write it with this."""
    return _percent_units(math.floor((1 - house_edge) * 100 * 10**places), places)


def house_edge_text(house_edge: Fraction, places: int = 2) -> str:
    """The house edge as a percentage to ``places`` decimals, rounded to the nearest (a half up, away from zero):
    1.05790…% → "1.06%". Next to :func:`rtp_text` the two may add up to 100% less one in the last place (1.01% and
    98.98% for one deck's Banker): the return is the figure a player is promised, so it is the one never rounded
    up."""
    scaled = abs(house_edge) * 100 * 10**places
    units = math.floor(scaled + Fraction(1, 2))
    return _percent_units(-units if house_edge < 0 else units, places)
