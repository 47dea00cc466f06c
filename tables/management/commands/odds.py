"""Exact chances and house edge of every bet: ``manage.py odds [--decks N] [--table NAME] [--json]``."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from fractions import Fraction
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tables.engine import (
    DEFAULT_PAYTABLE,
    Paytable,
    bet_distributions,
    house_edge_text,
    house_edges,
    outcome_probabilities,
    rtp_text,
)
from tables.models import Table


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:.4f}%"


def _fraction(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def odds_report(decks: int, paytable: Paytable) -> dict[str, Any]:
    """Every number the command prints, JSON-able (floats, with the exact fractions as strings)."""
    edges = house_edges(decks, paytable)
    distributions = bet_distributions(decks, paytable)
    bets: dict[str, Any] = {}
    for name, edge in edges.items():
        dist = distributions[name]
        win = sum((p for net, p in dist.items() if net > 0), Fraction(0))
        push = dist.get(Fraction(0), Fraction(0))
        bets[name] = {
            "win": float(win),
            "push": float(push),
            "lose": float(1 - win - push),
            "house_edge": float(edge),
            "return_to_player": float(1 - edge),
            "house_edge_exact": _fraction(edge),
        }
    return {
        "decks": decks,
        "paytable": paytable.to_dict(),
        "outcomes": {k: float(v) for k, v in outcome_probabilities(decks).items()},
        "outcomes_exact": {k: _fraction(v) for k, v in outcome_probabilities(decks).items()},
        "bets": bets,
    }


class Command(BaseCommand):
    help = "Print the exact probability and house edge of every bet for a deck count and paytable."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--decks", type=int, default=None, help="Decks in the shoe, 1-8 (default 8, or the table's)."
        )
        parser.add_argument("--table", default=None, help="Use this table's variant: its paytable and deck count.")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args: Any, **options: Any) -> None:
        decks: int | None = options["decks"]
        offered: set[str] | None = None  # a table's offered bets; None: every bet
        paytable = DEFAULT_PAYTABLE
        source = "default paytable"
        if options["table"]:
            try:
                table = Table.objects.select_related("variant").get(name=options["table"])
            except Table.DoesNotExist:
                raise CommandError(f'There is no table named "{options["table"]}".') from None
            try:
                paytable = table.variant.engine_paytable()
            except (TypeError, ValueError) as exc:
                raise CommandError(f'Table "{table.name}" has an invalid paytable: {exc}') from None
            decks = decks if decks is not None else table.variant.decks
            offered = set(table.variant.limits_dict()["per_type"])
            if "banker" in offered:
                offered.add("banker_no_commission")
            source = f'table "{table.name}", variant "{table.variant}"'
        decks = 8 if decks is None else decks
        if not 1 <= decks <= 8:
            raise CommandError(f"--decks must be between 1 and 8, not {decks}.")

        report = odds_report(decks, paytable)
        if offered is not None:
            report["bets"] = {name: row for name, row in report["bets"].items() if name in offered}
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        outcomes = outcome_probabilities(decks)
        self.stdout.write(f"Exact odds, {decks} deck{'s' if decks > 1 else ''}, {source}")
        self.stdout.write(
            "Outcomes: " + "  ".join(f"{k.capitalize()} {_pct(outcomes[k])}" for k in ("banker", "player", "tie"))
        )
        self.stdout.write("")
        self.stdout.write(f"{'Bet':<22} {'Win':>9} {'Push':>9} {'House edge':>11} {'RTP':>9}")
        edges = house_edges(decks, paytable)
        for name, row in report["bets"].items():
            self.stdout.write(
                f"{name:<22} {row['win'] * 100:>8.4f}% {row['push'] * 100:>8.4f}% "
                f"{house_edge_text(edges[name], places=4):>11} {rtp_text(edges[name], places=4):>9}"
            )
