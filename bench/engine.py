"""Engine benchmark: exact odds and simulated rounds per second, each next to a baseline from the same run.

Run from the repo root: ``.venv/bin/python bench/engine.py [--rounds N]``. No Django needed.

* Exact odds (8 decks, every bet, cold: caches cleared) vs a plain ordered enumeration of the deal over
  card values with integer weights (no multiset shortcut, no memoised tableau).
* Simulation: whole shoes (provably fair v1 shuffle, burn, cut card, last round past the cut) with all 14
  bet types (15 with Banker in both modes) settled through the cent table proven equal to ``settle``,
  vs a bare deal loop over already shuffled integer cards (no shuffle, no cut card, no settlement).
  For context: the same rounds settled one bet at a time through ``deal_round`` + Decimal ``settle``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import record
from tables.engine import house_edges, new_shoe, settle
from tables.engine.odds import outcome_weights
from tables.engine.simulation import (
    BANKER_DRAWS,
    INT_VALUES,
    N_KEYS,
    SIM_BETS,
    settlement_table,
    shoe_seeds,
    shuffled_ints,
    simulate,
)


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def exact_odds_cold() -> None:
    outcome_weights.cache_clear()
    house_edges(8)


def ordered_enumeration(decks: int = 8) -> list[int]:
    """Baseline: every ordered deal P1 B1 P2 B2 [P3] [B3] by value, integer weights, scaled to six cards."""
    c = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    weights = [0] * 300
    for p1 in range(10):
        w1 = c[p1]
        c[p1] -= 1
        for b1 in range(10):
            w2 = w1 * c[b1]
            if not w2:
                continue
            c[b1] -= 1
            for p2 in range(10):
                w3 = w2 * c[p2]
                if not w3:
                    continue
                c[p2] -= 1
                for b2 in range(10):
                    w = w3 * c[b2]
                    if not w:
                        continue
                    c[b2] -= 1
                    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
                    if pt >= 8 or bt >= 8:
                        weights[(pt * 10 + bt) * 3] += w * (n - 4) * (n - 5)
                    elif pt <= 5:
                        for x in range(10):
                            wx = w * c[x]
                            if not wx:
                                continue
                            c[x] -= 1
                            pf = (pt + x) % 10
                            if BANKER_DRAWS[bt][x]:
                                for y in range(10):
                                    weights[(pf * 10 + (bt + y) % 10) * 3 + 2] += wx * c[y]
                            else:
                                weights[(pf * 10 + bt) * 3 + 1] += wx * (n - 5)
                            c[x] += 1
                    elif bt <= 5:
                        for y in range(10):
                            weights[(pt * 10 + (bt + y) % 10) * 3 + 2] += w * c[y] * (n - 5)
                    else:
                        weights[(pt * 10 + bt) * 3 + 1] += w * (n - 4) * (n - 5)
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return weights


def bare_deal_loop(orders: list[list[int]], rounds: int) -> int:
    """Baseline: deal rounds from pre-shuffled integer shoes (first 300 cards of each), nothing else."""
    v = INT_VALUES
    draws = BANKER_DRAWS
    done = 0
    checksum = 0
    while done < rounds:
        for order in orders:
            pos = 0
            while pos < 300 and done < rounds:
                p1, b1, p2, b2 = order[pos], order[pos + 1], order[pos + 2], order[pos + 3]
                pos += 4
                pt = (v[p1] + v[p2]) % 10
                bt = (v[b1] + v[b2]) % 10
                if pt < 8 and bt < 8:
                    if pt <= 5:
                        x = v[order[pos]]
                        pos += 1
                        draw = draws[bt][x]
                        pt = (pt + x) % 10
                    else:
                        draw = bt <= 5
                    if draw:
                        bt = (bt + v[order[pos]]) % 10
                        pos += 1
                checksum += pt - bt
                done += 1
            if done >= rounds:
                break
    return checksum


def settled_totals(rounds: int) -> list[int]:
    """Simulate and settle all bets: the cent table applied to the round counts (Σ count × return)."""
    sim = simulate(rounds, decks=8, seed="bench")
    table = settlement_table()
    totals = [0] * len(SIM_BETS)
    for key in range(N_KEYS):
        count = sim.counts[key]
        if count:
            row = table[key]
            for i in range(len(totals)):
                totals[i] += count * row[i]
    return totals


def decimal_settle(rounds: int) -> None:
    """Context: deal_round on Card objects and Decimal settle() for each of the 15 bets, round by round."""
    stake = Decimal("1.00")
    bets = [("banker", "no_commission") if b == "banker_no_commission" else (b, "traditional") for b in SIM_BETS]
    seeds = shoe_seeds("bench-decimal")
    done = n = 0
    while done < rounds:
        shoe = new_shoe(8, seed_hex=seeds(n))
        n += 1
        while not shoe.is_last_round and done < rounds:
            result = shoe.deal_round()
            for bet_type, mode in bets:
                settle(bet_type, stake, result, mode)
            done += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=500_000)
    args = parser.parse_args()
    rounds = args.rounds

    print("Exact odds, 8 decks, all 15 bets (cold)")
    fast = best_of(exact_odds_cold)
    base = best_of(ordered_enumeration, repeat=1)
    assert sum(ordered_enumeration(1)) == sum(outcome_weights(1)[0])
    print(f"  engine (value classes, multisets)  {fast:8.3f} s   goal <= 0.5 s {'OK' if fast <= 0.5 else 'MISSED'}")
    print(f"  baseline (plain ordered, weights)  {base:8.3f} s   ({base / fast:.1f}x slower)")
    print()
    record("exact odds, 8 decks, all bets (cold)", fast, "s", baseline=base, goal="≤ 0.5 s", met=fast <= 0.5)

    print(f"Simulation, 8 decks, {rounds:,} rounds")
    seeds = shoe_seeds("bench-orders")
    orders = [shuffled_ints(seeds(i), 8) for i in range(64)]
    t_bare = best_of(lambda: bare_deal_loop(orders, rounds))
    t_sim = best_of(lambda: settled_totals(rounds))
    decimal_rounds = max(rounds // 50, 1000)
    t_dec = best_of(lambda: decimal_settle(decimal_rounds), repeat=1)
    sim_rate = rounds / t_sim
    print(
        f"  whole shoes, all bets settled      {sim_rate:12,.0f} rounds/s   goal >= 100,000 "
        f"{'OK' if sim_rate >= 100_000 else 'MISSED'}"
    )
    print(f"  baseline: bare deal loop, int cards{rounds / t_bare:12,.0f} rounds/s   (no shuffle/cut/settle)")
    record(
        "simulated shoes, all bets settled",
        sim_rate,
        "rounds/s",
        baseline=rounds / t_bare,
        goal="≥ 100,000/s",
        met=sim_rate >= 100_000,
    )
    print(
        f"  context: deal_round + Decimal settle{decimal_rounds / t_dec:11,.0f} rounds/s   (15 settle() calls a round)"
    )


if __name__ == "__main__":
    main()
