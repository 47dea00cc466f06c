"""Statistical checks of the shuffle: chi-square tests that the provably fair shoes look uniformly random.

Two tests over N shoes (``rng_report``):

* **First card**: how often each of the 52 card faces is the first card of a shoe (51 degrees of freedom).
* **Positions**: for every card face, in which eighth of the shoe each of its copies lies (52 faces × 8 bins,
  52 × 7 degrees of freedom). A shuffle that leaves any card near where a fresh deck has it fails this.

p-values come from the chi-square distribution's upper tail (``chi2_sf``), computed here so the engine needs
nothing beyond the standard library. A p-value is the chance of a statistic at least this large from a
uniform shuffle: very small values (say under 0.001) mean trouble; over many reports they are uniform in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import Card

POSITION_BINS = 8


def _upper_gamma_q(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) (series below a+1, continued fraction above)."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X ≥ statistic) for X chi-square distributed with ``dof`` degrees of freedom."""
    return _upper_gamma_q(dof / 2, statistic / 2)


def chi_square(observed: Sequence[int], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


@dataclass(frozen=True)
class ChiSquare:
    name: str
    statistic: float
    dof: int
    p_value: float


@dataclass(frozen=True)
class RngReport:
    shoes: int
    cards_per_shoe: int
    first_card: ChiSquare
    positions: ChiSquare

    @property
    def tests(self) -> tuple[ChiSquare, ChiSquare]:
        return (self.first_card, self.positions)


def rng_report(shoes: Iterable[Sequence[Card]]) -> RngReport:
    """Chi-square tests over these shoes (each a full shuffled shoe, all of the same size)."""
    first: dict[str, int] = {}
    cells: dict[tuple[str, int], int] = {}
    count = 0
    size = 0
    for shoe in shoes:
        if count == 0:
            size = len(shoe)
        elif len(shoe) != size:
            raise ValueError("every shoe must have the same number of cards")
        count += 1
        first[str(shoe[0])] = first.get(str(shoe[0]), 0) + 1
        for position, card in enumerate(shoe):
            key = (str(card), position * POSITION_BINS // size)
            cells[key] = cells.get(key, 0) + 1
    if count == 0:
        raise ValueError("no shoes")
    faces = sorted({face for face, _bin in cells})
    observed_first = [first.get(face, 0) for face in faces]
    first_stat = chi_square(observed_first, [count / len(faces)] * len(faces))
    copies = size // len(faces)
    observed_cells = [cells.get((face, b), 0) for face in faces for b in range(POSITION_BINS)]
    # Bins hold size/8 positions each (the last may differ by the rounding): expected copies per bin follow.
    bin_sizes = [sum(1 for p in range(size) if p * POSITION_BINS // size == b) for b in range(POSITION_BINS)]
    expected_cells = [count * copies * bin_sizes[b] / size for _face in faces for b in range(POSITION_BINS)]
    position_stat = chi_square(observed_cells, expected_cells)
    first_dof = len(faces) - 1
    position_dof = len(faces) * (POSITION_BINS - 1)
    return RngReport(
        shoes=count,
        cards_per_shoe=size,
        first_card=ChiSquare("first card of the shoe", first_stat, first_dof, chi2_sf(first_stat, first_dof)),
        positions=ChiSquare(
            "card positions (eighths)", position_stat, position_dof, chi2_sf(position_stat, position_dof)
        ),
    )
