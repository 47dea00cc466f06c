"""Fast simulation: whole shoes (shuffle, burn, cut card) dealt on integer cards, all bets settled through
per-outcome-class integer-cent tables.

A round's settlement depends only on its *outcome key*: the outcome class of ``odds`` (totals, natural
round / Banker on two / Banker on three cards) and four pair flags. ``settlement_table`` gives, per key,
what every bet returns in integer cents for one stake, computed from ``payouts.bet_outcome`` with exact
integer floor division — tests prove it equal to ``settle`` for every key. The dealing loop therefore only
counts keys; totals are ``Σ count[key] × table[key]``, the same integers as settling round by round.

Integer cards are ``suit × 13 + rank`` in RANKS/SUITS order, the order of ``cards.fresh_order``, so
``shuffled_ints(seed, decks)`` is exactly ``shuffled_cards(seed, decks)`` in this encoding.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from .bets import BET_TYPES
from .cards import RANK_POINTS, RANKS, SUITS, Card
from .fair import HmacStream, cards_behind_cut, seed_bytes
from .odds import CLASS_FACTS, house_edges
from .payouts import DEFAULT_PAYTABLE, Facts, Paytable, bet_outcome
from .shoe import DEFAULT_CUT_RANGE, clamp_cut_range
from .tableau import banker_draws

#: Every bet the simulator settles: BET_TYPES with Banker in both modes.
SIM_BETS: tuple[str, ...] = ("player", "banker", "banker_no_commission", *BET_TYPES[2:])

INT_VALUES: tuple[int, ...] = tuple(RANK_POINTS[r] for _ in SUITS for r in RANKS)
INT_RANKS: tuple[int, ...] = tuple(i % 13 for i in range(52))
N_KEYS = 300 * 16
#: BANKER_DRAWS[banker two-card total][player third value, or 10 if Player stood]
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(banker_draws(b, x if x < 10 else None) for x in range(11)) for b in range(10)
)


def card_int(card: Card) -> int:
    return SUITS.index(card.suit) * 13 + RANKS.index(card.rank)


def card_ints(cards: Iterable[Card]) -> list[int]:
    return [card_int(c) for c in cards]


def shuffled_ints(seed_hex: str, decks: int) -> list[int]:
    """``shuffled_cards(seed_hex, decks)`` as integer cards (same algorithm, same order)."""
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")
    return HmacStream(seed_bytes(seed_hex), "shuffle").shuffle(list(range(52)) * decks)


def deal_key(order: Sequence[int], pos: int) -> tuple[int, int]:
    """Deal one round of integer cards from ``order[pos:]``: (outcome key, position after the round)."""
    v = INT_VALUES
    p1, b1, p2, b2 = order[pos], order[pos + 1], order[pos + 2], order[pos + 3]
    pos += 4
    pt = (v[p1] + v[p2]) % 10
    bt = (v[b1] + v[b2]) % 10
    if pt >= 8 or bt >= 8:
        kind = 0
    else:
        if pt <= 5:
            x = v[order[pos]]
            pos += 1
            draw = BANKER_DRAWS[bt][x]
            pt = (pt + x) % 10
        else:
            draw = bt <= 5
        if draw:
            bt = (bt + v[order[pos]]) % 10
            pos += 1
            kind = 2
        else:
            kind = 1
    r = INT_RANKS
    flags = (r[p1] == r[p2]) | (r[b1] == r[b2]) << 1 | (p1 == p2) << 2 | (b1 == b2) << 3
    return ((pt * 10 + bt) * 3 + kind) * 16 + flags, pos


def key_facts(key: int) -> Facts:
    """The Facts of an outcome key (what settlement looks at)."""
    flags = key % 16
    return CLASS_FACTS[key // 16]._replace(
        player_pair=bool(flags & 1),
        banker_pair=bool(flags & 2),
        player_perfect_pair=bool(flags & 4),
        banker_perfect_pair=bool(flags & 8),
    )


def facts_key(facts: Facts) -> int:
    """The outcome key of a round's Facts (the inverse of key_facts)."""
    natural = facts.player_natural or facts.banker_natural
    kind = 0 if natural else 2 if facts.banker_card_count == 3 else 1
    flags = facts.player_pair | facts.banker_pair << 1 | facts.player_perfect_pair << 2 | facts.banker_perfect_pair << 3
    return ((facts.player_total * 10 + facts.banker_total) * 3 + kind) * 16 + flags


def settlement_table(paytable: Paytable = DEFAULT_PAYTABLE, stake_cents: int = 100) -> list[tuple[int, ...]]:
    """Per outcome key: what each of SIM_BETS returns, in cents, for a stake of ``stake_cents``.

    Winnings are ``floor(stake × odds)`` in whole cents — docs/rules.md's rounding down — by integer arithmetic.
    """
    if stake_cents <= 0:
        raise ValueError("the stake is a positive number of cents")
    odds_of: dict[Decimal, Fraction] = {}
    table: list[tuple[int, ...]] = []
    for key in range(N_KEYS):
        facts = key_facts(key)
        row = []
        for name in SIM_BETS:
            bet_type, mode = ("banker", "no_commission") if name == "banker_no_commission" else (name, "traditional")
            outcome, odds = bet_outcome(bet_type, facts, mode, paytable)
            if outcome == "won":
                fraction = odds_of.get(odds)
                if fraction is None:
                    fraction = odds_of[odds] = Fraction(odds)
                row.append(stake_cents + stake_cents * fraction.numerator // fraction.denominator)
            else:
                row.append(stake_cents if outcome == "push" else 0)
        table.append(tuple(row))
    return table


@dataclass
class Simulation:
    """Outcome-key counts of a run of whole shoes."""

    decks: int
    rounds: int = 0
    shoes: int = 0
    counts: list[int] = field(default_factory=lambda: [0] * N_KEYS)


def shoe_seeds(seed: str | int | None) -> Callable[[int], str]:
    """Shoe number -> server seed: derived from ``seed`` (reproducible runs), or fresh secrets if None."""
    if seed is None:
        return lambda _: secrets.token_hex(32)
    master = hashlib.sha256(f"baccarat/simulate/{seed}".encode()).digest()
    return lambda n: hmac.digest(master, n.to_bytes(8, "big"), "sha256").hex()


def simulate(
    rounds: int,
    decks: int = 8,
    seed: str | int | None = None,
    cut_range: tuple[int, int] = DEFAULT_CUT_RANGE,
    progress: Callable[[int], None] | None = None,
    progress_every: int = 50_000,
) -> Simulation:
    """Deal ``rounds`` rounds through whole shoes: provably fair shuffle, burn, cut card, last round past it.

    ``progress(rounds_done)`` is called about every ``progress_every`` rounds and at the end.
    """
    if rounds < 0:
        raise ValueError("rounds must be ≥ 0")
    sim = Simulation(decks=decks)
    counts = sim.counts
    v = INT_VALUES
    seeds = shoe_seeds(seed)
    total = 52 * decks
    low, high = clamp_cut_range(total, cut_range)
    done = 0
    next_report = progress_every
    while done < rounds:
        shoe_seed = seeds(sim.shoes)
        order = shuffled_ints(shoe_seed, decks)
        cut_index = total - cards_behind_cut(shoe_seed, low, high)
        sim.shoes += 1
        pos = 1 + (v[order[0]] or 10)
        limit = min(rounds - done, total)  # at most this many rounds from this shoe
        dealt = 0
        while pos <= cut_index and dealt < limit:
            key, pos = deal_key(order, pos)
            counts[key] += 1
            dealt += 1
        done += dealt
        if progress is not None and done >= next_report:
            progress(done)
            next_report = done + progress_every
    sim.rounds = done
    if progress is not None:
        progress(done)
    return sim


@dataclass(frozen=True)
class BetStats:
    """Empirical net return per unit staked, its 95% interval half-width, and the exact (fresh-shoe) value."""

    bet: str
    rounds: int
    staked_cents: int
    returned_cents: int
    mean: float
    ci95: float
    exact: Fraction

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95


def bet_stats(sim: Simulation, paytable: Paytable = DEFAULT_PAYTABLE, stake_cents: int = 100) -> dict[str, BetStats]:
    """Per bet of SIM_BETS: what a stake on every round would have returned, with a normal 95% interval."""
    table = settlement_table(paytable, stake_cents)
    exact = house_edges(sim.decks, paytable)
    n = sim.rounds
    out: dict[str, BetStats] = {}
    for i, name in enumerate(SIM_BETS):
        returned = 0
        second = 0
        for key, count in enumerate(sim.counts):
            if count:
                net = table[key][i] - stake_cents
                returned += count * table[key][i]
                second += count * net * net
        staked = n * stake_cents
        if n:
            mean = (returned - staked) / staked
            variance = max(second / (n * stake_cents**2) - mean**2, 0.0)
            ci = 1.96 * math.sqrt(variance / n)
        else:
            mean, ci = 0.0, math.inf
        out[name] = BetStats(name, n, staked, returned, mean, ci, -exact[name])
    return out
