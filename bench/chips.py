"""Stakes as players build them: a few chips of the table's rack, stacked on a spot.

Real stakes are not one amount: a player drops one to four chips of the table's rack (``engine.chip_denominations``,
what the table page shows) on each spot, so a busy round holds many distinct amounts. The benchmarks
(``bench/bets.py``, ``bench/chaos.py``) draw their bets here, so what they measure sees the same spread.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

MOST_CHIPS = 4


def rack(limits: Any) -> list[int]:
    """The chips a table with these ``engine.Limits`` offers."""
    from tables.engine import chip_denominations

    return chip_denominations(limits.per_type)


def chip_stack(rng: random.Random, chips: Sequence[int], most: int = MOST_CHIPS) -> Decimal:
    """One to ``most`` chips of the rack, each drawn alike: e.g. 25 + 5 + 1 = 31.00."""
    return Decimal(sum(rng.choice(chips) for _ in range(rng.randint(1, most)))).quantize(Decimal("0.01"))


def chip_batch(rng: random.Random, limits: Any, bet_types: Sequence[str], shoe_round: int = 1) -> list[dict[str, str]]:
    """A confirm's bets on ``bet_types``, each a chip stack, within the table's ``limits`` (redrawn until the
    engine accepts the batch; each type's minimum if it never does): ``[{"type": …, "amount": "31.00"}, …]``."""
    from tables.engine import validate_bets

    chips = rack(limits)
    offered = [t for t in bet_types if t in limits.per_type]
    for _ in range(50):
        bets = [(t, chip_stack(rng, chips)) for t in offered]
        if not validate_bets(bets, [], limits, shoe_round):
            return [{"type": t, "amount": f"{a:.2f}"} for t, a in bets]
    return [{"type": t, "amount": f"{limits.per_type[t][0]:.2f}"} for t in offered]
