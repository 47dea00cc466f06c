"""Exact odds by combinatorial enumeration, for any deck count (1–8) and any paytable.

Main outcomes (winner, totals, naturals, Banker's card count) depend only on card *values*, so the deal is
enumerated over the ten value classes (value 0 holds 16 cards per deck, 1–9 hold 4), without replacement,
with integer weights. The first four cards are taken as two unordered two-card hands (55 × 55 multisets,
the weight of a sequence depending only on its multiset), then Player's and Banker's third cards. Every
leaf is scaled to six cards drawn, so all weights share the denominator N(N−1)…(N−5), N = 52 × decks.

Pair bets depend only on the first four cards' ranks and suits and not on the outcome, so their chances
are closed forms (inclusion–exclusion over "both hands pair"). Bets are then priced through
``payouts.bet_outcome`` — the same function that settles real rounds — so odds and settlement cannot drift.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from .bets import BET_TYPES
from .payouts import DEFAULT_PAYTABLE, Facts, Paytable, bet_outcome
from .tableau import Winner, banker_draws

#: Outcome classes: (player total, banker total, kind); kind 0 = a natural round, 1 = no natural and Banker
#: stood on two cards, 2 = Banker drew a third card.
NATURAL, BANKER_TWO, BANKER_THREE = 0, 1, 2
_CLASSES = 300


def _index(player_total: int, banker_total: int, kind: int) -> int:
    return (player_total * 10 + banker_total) * 3 + kind


def _check_decks(decks: int) -> None:
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")


@lru_cache(maxsize=16)
def outcome_weights(decks: int) -> tuple[tuple[int, ...], int]:
    """(weight of each outcome class, common denominator) — exact integers for a fresh shoe of ``decks``."""
    _check_decks(decks)
    counts = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    after5 = n - 5
    after4 = (n - 4) * (n - 5)
    draws = [[banker_draws(b, x) for x in range(10)] for b in range(10)]
    stand_draws = [banker_draws(b, None) for b in range(10)]
    weights = [0] * _CLASSES
    c = counts
    for p1 in range(10):
        w_p1 = c[p1]
        c[p1] -= 1
        for p2 in range(p1, 10):
            w_p = w_p1 * c[p2] * (1 if p1 == p2 else 2)
            c[p2] -= 1
            pt = (p1 + p2) % 10
            for b1 in range(10):
                w_b1 = w_p * c[b1]
                if not w_b1:
                    continue
                c[b1] -= 1
                for b2 in range(b1, 10):
                    w = w_b1 * c[b2] * (1 if b1 == b2 else 2)
                    if not w:
                        continue
                    c[b2] -= 1
                    bt = (b1 + b2) % 10
                    if pt >= 8 or bt >= 8:
                        weights[_index(pt, bt, NATURAL)] += w * after4
                    elif pt <= 5:
                        row = draws[bt]
                        for x in range(10):
                            wx = c[x]
                            if not wx:
                                continue
                            pf = (pt + x) % 10
                            if row[x]:
                                c[x] -= 1
                                wwx = w * wx
                                base = pf * 30 + 2
                                for y in range(10):
                                    wy = c[y]
                                    if wy:
                                        weights[base + ((bt + y) % 10) * 3] += wwx * wy
                                c[x] += 1
                            else:
                                weights[pf * 30 + bt * 3 + 1] += w * wx * after5
                    elif stand_draws[bt]:
                        base = pt * 30 + 2
                        for y in range(10):
                            wy = c[y]
                            if wy:
                                weights[base + ((bt + y) % 10) * 3] += w * wy * after5
                    else:
                        weights[_index(pt, bt, BANKER_TWO)] += w * after4
                    c[b2] += 1
                c[b1] += 1
            c[p2] += 1
        c[p1] += 1
    denominator = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    assert sum(weights) == denominator
    return tuple(weights), denominator


def _facts(player_total: int, banker_total: int, kind: int) -> Facts:
    winner: Winner = "player" if player_total > banker_total else "banker" if banker_total > player_total else "tie"
    natural = kind == NATURAL
    return Facts(
        winner=winner,
        player_total=player_total,
        banker_total=banker_total,
        player_natural=natural and player_total >= 8,
        banker_natural=natural and banker_total >= 8,
        banker_card_count=3 if kind == BANKER_THREE else 2,
        player_pair=False,
        banker_pair=False,
        player_perfect_pair=False,
        banker_perfect_pair=False,
    )


#: Every outcome class with the facts settlement looks at.
CLASS_FACTS: tuple[Facts, ...] = tuple(_facts(p, b, k) for p in range(10) for b in range(10) for k in range(3))


def outcome_probabilities(decks: int = 8) -> dict[str, Fraction]:
    """Exact chances of a Banker win, a Player win and a Tie."""
    weights, denominator = outcome_weights(decks)
    sums = {"banker": 0, "player": 0, "tie": 0}
    for w, facts in zip(weights, CLASS_FACTS, strict=True):
        sums[facts.winner] += w
    return {k: Fraction(v, denominator) for k, v in sums.items()}


def pair_probabilities(decks: int = 8) -> dict[str, Fraction]:
    """Exact chances of the pair bets winning (first four cards, P1 B1 P2 B2)."""
    _check_decks(decks)
    n = 52 * decks
    r = 4 * decks  # cards of one rank
    s = decks  # copies of one card (rank and suit)
    two = n * (n - 1)
    four = two * (n - 2) * (n - 3)
    one_pair = Fraction(13 * r * (r - 1), two)
    both_pairs = Fraction(13 * r * (r - 1) * (r - 2) * (r - 3) + 13 * 12 * (r * (r - 1)) ** 2, four)
    one_perfect = Fraction(52 * s * (s - 1), two)
    both_perfect = Fraction(52 * s * (s - 1) * (s - 2) * (s - 3) + 52 * 51 * (s * (s - 1)) ** 2, four)
    return {
        "player_pair": one_pair,
        "banker_pair": one_pair,
        "any_pair": 2 * one_pair - both_pairs,
        "perfect_pair": 2 * one_perfect - both_perfect,
    }


def _pair_facts(bet_type: str) -> Facts:
    base = _facts(0, 0, BANKER_TWO)
    return base._replace(
        player_pair=bet_type in ("player_pair", "any_pair"),
        banker_pair=bet_type in ("banker_pair", "any_pair"),
        player_perfect_pair=bet_type == "perfect_pair",
        banker_perfect_pair=bet_type == "perfect_pair",
    )


def _net(outcome: str, odds: Fraction) -> Fraction:
    return odds if outcome == "won" else Fraction(0) if outcome == "push" else Fraction(-1)


def bet_distributions(decks: int = 8, paytable: Paytable = DEFAULT_PAYTABLE) -> dict[str, dict[Fraction, Fraction]]:
    """For each bet (BET_TYPES, plus "banker_no_commission"): {net return per unit staked: probability}."""
    weights, denominator = outcome_weights(decks)
    pairs = pair_probabilities(decks)
    out: dict[str, dict[Fraction, Fraction]] = {}
    for name in (*BET_TYPES[:2], "banker_no_commission", *BET_TYPES[2:]):
        bet_type, mode = ("banker", "no_commission") if name == "banker_no_commission" else (name, "traditional")
        if bet_type in pairs:
            outcome, odds = bet_outcome(bet_type, _pair_facts(bet_type), mode, paytable)
            win = pairs[bet_type]
            out[name] = {Fraction(-1): 1 - win, _net(outcome, Fraction(odds)): win}
            continue
        sums: dict[Fraction, int] = {}
        for w, facts in zip(weights, CLASS_FACTS, strict=True):
            if w:
                outcome, odds = bet_outcome(bet_type, facts, mode, paytable)
                net = _net(outcome, Fraction(odds))
                sums[net] = sums.get(net, 0) + w
        out[name] = {net: Fraction(w, denominator) for net, w in sorted(sums.items())}
    return out


def expected_returns(decks: int = 8, paytable: Paytable = DEFAULT_PAYTABLE) -> dict[str, Fraction]:
    """Expected net return per unit staked of each bet (negative: the house's advantage)."""
    return {
        name: sum((net * p for net, p in dist.items()), Fraction(0))
        for name, dist in bet_distributions(decks, paytable).items()
    }


def house_edges(decks: int = 8, paytable: Paytable = DEFAULT_PAYTABLE) -> dict[str, Fraction]:
    """Exact house edge of every bet per unit staked (pushes count as bets placed).

    Keys: BET_TYPES (Banker in Traditional mode) plus "banker_no_commission".
    """
    return {name: -ev for name, ev in expected_returns(decks, paytable).items()}
