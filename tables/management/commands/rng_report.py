"""``manage.py rng_report --shoes N [--decks D]``: chi-square tests of the provably fair shuffle over N fresh
shoes (tables.engine.rng_stats), with their p-values."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tables.engine import fair
from tables.engine.rng_stats import rng_report


class Command(BaseCommand):
    help = "Chi-square tests of the shuffle (first cards and card positions) over N new shoes, with p-values."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--shoes", type=int, default=1000, help="how many shoes to shuffle (default 1000)")
        parser.add_argument("--decks", type=int, default=8, help="decks per shoe (default 8)")

    def handle(self, *args: Any, **options: Any) -> None:
        shoes, decks = options["shoes"], options["decks"]
        if shoes < 10 or not 1 <= decks <= 8:
            raise CommandError("use --shoes 10 or more and --decks from 1 to 8")
        report = rng_report(fair.shuffled_cards(fair.new_server_seed(), decks) for _ in range(shoes))
        self.stdout.write(f"{report.shoes} shoes of {report.cards_per_shoe} cards, each from a new server seed\n")
        self.stdout.write(f"{'test':<28} {'chi-square':>12} {'dof':>5} {'p-value':>9}\n")
        for test in report.tests:
            self.stdout.write(f"{test.name:<28} {test.statistic:>12.2f} {test.dof:>5} {test.p_value:>9.4f}\n")
        worst = min(test.p_value for test in report.tests)
        verdict = "consistent with a uniform shuffle" if worst >= 0.001 else "SUSPICIOUS: a p-value under 0.001"
        self.stdout.write(f"verdict: {verdict}\n")
