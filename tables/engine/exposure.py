"""Exposure: what the house pays net (returns − stakes) on a round's stakes, on a known result or in the worst case.

The stakes are ``(bet type, mode, amount, count)`` rows. Each bet is paid as settlement pays it
(:func:`tables.engine.payouts.bet_outcome`, the winnings rounded down to the cent per bet), so the figure is
what the ledger would move. The worst case is the honest maximum over every distinct outcome a round can have
(:func:`possible_facts`), not a sum of per-type best cases: mutually exclusive bets (Player and Banker, a 9–0
natural and a Lucky Six) never both win in it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Final

from baccarat_site.money import CENT, ZERO, cents_down

from .bets import BET_TYPES
from .payouts import Facts, Outcome, Paytable, bet_outcome
from .tableau import Winner, banker_draws, player_draws

TRADITIONAL: Final = "traditional"
NO_COMMISSION: Final = "no_commission"

#: One row of stakes: (bet type, mode, amount of each bet, how many bets of that amount).
StakeRow = tuple[str, str, Decimal, int]
#: (bet type, mode) as it prices: only a Banker bet's mode changes what it pays.
StakeKey = tuple[str, str]
#: What a round does to each stake key: ("won", odds) / ("push", 0) / ("lost", 0).
OutcomeVector = Mapping[StakeKey, tuple[Outcome, Decimal]]

#: The 15 keys that price differently: every bet type in Traditional mode, and Banker in No-Commission mode.
STAKE_KEYS: Final[tuple[StakeKey, ...]] = (*((t, TRADITIONAL) for t in BET_TYPES), ("banker", NO_COMMISSION))


def stake_key(bet_type: str, mode: str) -> StakeKey:
    """The key a bet prices under: its type, and No-Commission only for a Banker bet."""
    return (bet_type, NO_COMMISSION if bet_type == "banker" and mode == NO_COMMISSION else TRADITIONAL)


def _pair_options(first: int, second: int, perfect_possible: bool) -> tuple[tuple[bool, bool], ...]:
    """(pair, perfect pair) a side's first two cards can show, given their point values.

    Equal values 1–9 are the same rank, hence always a pair; two value-0 cards (10, J, Q, K) may or may not
    be; a perfect pair (same rank and suit) needs two copies of a card, so at least two decks.
    """
    if first != second:
        return ((False, False),)
    pairs = ((True, False), (True, True)) if perfect_possible else ((True, False),)
    return ((False, False), *pairs) if first == 0 else pairs


PairOptions = tuple[tuple[bool, bool], ...]


@lru_cache(maxsize=8)
def possible_facts(decks: int) -> tuple[Facts, ...]:
    """Every distinct :class:`Facts` a round dealt from a fresh shoe of ``decks`` can produce.

    The deal is enumerated over point values exactly as the tableau plays it (both two-card hands, Player's
    third card, Banker's), taking cards out of the value counts as they are dealt; the pair flags are then
    combined as the first two cards' ranks allow (:func:`_pair_options`). The set is exact up to the
    rank/suit level for the pair flags (two decks or more hold every combination); it is never smaller
    than the set of reachable outcomes, so a maximum over it is a safe upper bound.
    """
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")
    c = [16 * decks] + [4 * decks] * 9
    perfect_possible = decks >= 2
    # (player total, banker total, player natural, banker natural, banker cards, player pairs, banker pairs)
    mains: set[tuple[int, int, bool, bool, int, PairOptions, PairOptions]] = set()
    for p1 in range(10):  # every value class holds at least four cards
        c[p1] -= 1
        for p2 in range(p1, 10):
            if c[p2] <= 0:
                continue
            c[p2] -= 1
            pt = (p1 + p2) % 10
            player_pairs = _pair_options(p1, p2, perfect_possible)
            for b1 in range(10):
                if c[b1] <= 0:
                    continue
                c[b1] -= 1
                for b2 in range(b1, 10):
                    if c[b2] <= 0:
                        continue
                    c[b2] -= 1
                    bt = (b1 + b2) % 10
                    banker_pairs = _pair_options(b1, b2, perfect_possible)
                    if pt >= 8 or bt >= 8:
                        mains.add((pt, bt, pt >= 8, bt >= 8, 2, player_pairs, banker_pairs))
                    elif player_draws(pt):
                        for x in range(10):
                            if c[x] <= 0:
                                continue
                            c[x] -= 1
                            pf = (pt + x) % 10
                            if banker_draws(bt, x):
                                for y in range(10):
                                    if c[y] > 0:
                                        mains.add((pf, (bt + y) % 10, False, False, 3, player_pairs, banker_pairs))
                            else:
                                mains.add((pf, bt, False, False, 2, player_pairs, banker_pairs))
                            c[x] += 1
                    elif banker_draws(bt, None):
                        for y in range(10):
                            if c[y] > 0:
                                mains.add((pt, (bt + y) % 10, False, False, 3, player_pairs, banker_pairs))
                    else:
                        mains.add((pt, bt, False, False, 2, player_pairs, banker_pairs))
                    c[b2] += 1
                c[b1] += 1
            c[p2] += 1
        c[p1] += 1
    out: set[Facts] = set()
    for pt, bt, pnat, bnat, bcards, player_options, banker_options in mains:
        winner: Winner = "player" if pt > bt else "banker" if bt > pt else "tie"
        for ppair, pperfect in player_options:
            for bpair, bperfect in banker_options:
                out.add(Facts(winner, pt, bt, pnat, bnat, bcards, ppair, bpair, pperfect, bperfect))
    return tuple(sorted(out))


@lru_cache(maxsize=32)
def outcome_vectors(decks: int, paytable: Paytable) -> tuple[tuple[OutcomeVector, Facts], ...]:
    """The distinct ways a round can treat the 15 stake keys, each with one round that does so."""
    vectors: dict[tuple[tuple[Outcome, Decimal], ...], Facts] = {}
    for facts in possible_facts(decks):
        vector = tuple(bet_outcome(t, facts, m, paytable) for t, m in STAKE_KEYS)
        vectors.setdefault(vector, facts)
    return tuple((dict(zip(STAKE_KEYS, vector, strict=True)), facts) for vector, facts in vectors.items())


class Book:
    """Stakes grouped as ``{stake key: {amount: count}}``, paying each bet as settlement does."""

    def __init__(self, bets: Iterable[StakeRow]) -> None:
        self.groups: dict[StakeKey, dict[Decimal, int]] = defaultdict(lambda: defaultdict(int))
        for bet_type, mode, amount, count in bets:
            self.groups[stake_key(bet_type, mode)][Decimal(amount)] += count
        self.stakes = {key: sum((a * n for a, n in by.items()), ZERO) for key, by in self.groups.items()}
        self.total = sum(self.stakes.values(), ZERO)
        self._won: dict[tuple[StakeKey, Decimal], Decimal] = {}

    def returns(self, key: StakeKey, outcome: Outcome, odds: Decimal) -> Decimal:
        """What the bets of ``key`` return on ``outcome``: 0 lost, the stakes on a push, stake + winnings on
        a win with each bet's winnings rounded down to the cent."""
        if outcome == "lost":
            return ZERO
        if outcome == "push":
            return self.stakes[key]
        memo = self._won.get((key, odds))
        if memo is None:
            memo = sum((n * (a + cents_down(a * odds)) for a, n in self.groups[key].items()), ZERO)
            self._won[(key, odds)] = memo
        return memo

    def net(self, vector: OutcomeVector) -> Decimal:
        """The house's net payout (returns − stakes) on a round treating the stakes as ``vector`` says."""
        return sum((self.returns(key, *vector[key]) for key in self.groups), ZERO) - self.total


@dataclass(frozen=True)
class Exposure:
    """The house's net payout (returns − stakes) in the worst case, and a round that produces it."""

    net: Decimal
    facts: Facts | None = None  # None without stakes
    exact: bool = False  # True when the round's result is known (dealt), so the figure is not a bound

    @property
    def outcome(self) -> str:
        return describe_facts(self.facts) if self.facts is not None else ""


def worst_case_exposure(bets: Iterable[StakeRow], *, decks: int, paytable: Paytable) -> Exposure:
    """The most the house can lose on a round's stakes: max over outcomes of (returns − stakes), to the cent.

    Every distinct outcome a shoe of ``decks`` allows (:func:`possible_facts`) is priced with
    :func:`bet_outcome`, the function settlement uses, and the worst one kept. Cards already dealt are not
    taken into account (:func:`result_exposure` prices a known result), so during dealing the figure is an
    upper bound. Negative when the house wins whatever happens; 0.00 without stakes.
    """
    book = Book(bets)
    if not book.groups:
        return Exposure(net=ZERO)
    worst: tuple[Decimal, Facts] | None = None
    for vector, facts in outcome_vectors(decks, paytable):
        net = book.net(vector)
        if worst is None or net > worst[0]:
            worst = (net, facts)
    assert worst is not None  # possible_facts is never empty
    return Exposure(net=worst[0].quantize(CENT), facts=worst[1])


def result_exposure(bets: Iterable[StakeRow], *, facts: Facts, paytable: Paytable) -> Exposure:
    """What the house pays net on a known result (returns − stakes), to the cent."""
    book = Book(bets)
    if not book.groups:
        return Exposure(net=ZERO, exact=True)
    vector = {key: bet_outcome(key[0], facts, key[1], paytable) for key in book.groups}
    return Exposure(net=book.net(vector).quantize(CENT), facts=facts, exact=True)


def describe_facts(facts: Facts) -> str:
    """A round in a few words, for operators, e.g. ``Tie (Player 6, Banker 6), Player pair``."""
    winner = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[facts.winner]
    parts = [f"{winner} (Player {facts.player_total}, Banker {facts.banker_total})"]
    if facts.player_natural or facts.banker_natural:
        parts.append("natural")
    elif facts.banker_card_count == 3:
        parts.append("Banker on three cards")
    for side, pair, perfect in (
        ("Player", facts.player_pair, facts.player_perfect_pair),
        ("Banker", facts.banker_pair, facts.banker_perfect_pair),
    ):
        if pair:
            parts.append(f"{side} {'perfect ' if perfect else ''}pair")
    return ", ".join(parts)
