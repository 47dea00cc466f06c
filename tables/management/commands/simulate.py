"""Deal whole shoes and compare each bet's empirical return with the exact one.

``manage.py simulate --rounds N [--decks N] [--seed S] [--json]``: shuffles (provably fair v1), burns,
places the cut card and plays every shoe to its last round, settling all bets through the engine's cent
table (proven equal to ``settle``); prints each bet's mean net return per unit staked with a 95% interval
next to the exact fresh-shoe figure. A progress bar goes to stderr.
"""

from __future__ import annotations

import json
import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tables.engine import DEFAULT_CUT_RANGE, bet_stats, simulate

BAR = 30


class Command(BaseCommand):
    help = "Simulate whole shoes and print each bet's empirical return (95% interval) next to the exact one."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--rounds", type=int, required=True, help="Rounds to deal.")
        parser.add_argument("--decks", type=int, default=8, help="Decks in the shoe, 1-8 (default 8).")
        parser.add_argument("--seed", default=None, help="Make the run reproducible (any string).")
        parser.add_argument("--cut-min", type=int, default=DEFAULT_CUT_RANGE[0], help="Fewest cards behind the cut.")
        parser.add_argument("--cut-max", type=int, default=DEFAULT_CUT_RANGE[1], help="Most cards behind the cut.")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds: int = options["rounds"]
        decks: int = options["decks"]
        if rounds < 1:
            raise CommandError("--rounds must be at least 1.")
        if not 1 <= decks <= 8:
            raise CommandError(f"--decks must be between 1 and 8, not {decks}.")
        if not 0 <= options["cut_min"] <= options["cut_max"]:
            raise CommandError("--cut-min must be between 0 and --cut-max.")

        started = time.perf_counter()

        def progress(done: int) -> None:
            filled = BAR * done // rounds
            rate = done / max(time.perf_counter() - started, 1e-9)
            self.stderr.write(
                f"\r[{'#' * filled}{'.' * (BAR - filled)}] {done:,}/{rounds:,} rounds  {rate:,.0f}/s", ending=""
            )
            self.stderr.flush()

        sim = simulate(
            rounds,
            decks=decks,
            seed=options["seed"],
            cut_range=(options["cut_min"], options["cut_max"]),
            progress=progress,
            progress_every=max(rounds // 100, 1_000),
        )
        self.stderr.write("")
        elapsed = time.perf_counter() - started
        stats = bet_stats(sim)

        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "rounds": sim.rounds,
                        "shoes": sim.shoes,
                        "decks": decks,
                        "seed": options["seed"],
                        "seconds": round(elapsed, 3),
                        "bets": {
                            name: {
                                "return": s.mean,
                                "ci95_low": s.low,
                                "ci95_high": s.high,
                                "exact_return": float(s.exact),
                                "exact_in_interval": s.low <= float(s.exact) <= s.high,
                            }
                            for name, s in stats.items()
                        },
                    },
                    indent=2,
                )
            )
            return
        self.stdout.write(
            f"{sim.rounds:,} rounds in {sim.shoes:,} shoes of {decks} deck{'s' if decks > 1 else ''}"
            f" ({elapsed:.1f} s, {sim.rounds / max(elapsed, 1e-9):,.0f} rounds/s); net return per unit staked:"
        )
        self.stdout.write("")
        self.stdout.write(f"{'Bet':<22} {'Simulated':>10} {'95% interval':>22} {'Exact':>10}")
        for name, s in stats.items():
            inside = s.low <= float(s.exact) <= s.high
            self.stdout.write(
                f"{name:<22} {s.mean * 100:>9.3f}% [{s.low * 100:>8.3f}%, {s.high * 100:>8.3f}%] "
                f"{float(s.exact) * 100:>9.4f}%{'' if inside else '  (outside)'}"
            )
