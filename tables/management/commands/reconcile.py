"""``manage.py reconcile``: every wallet against its ledger, the bets against the ledger; exits 1 on any mismatch.

It lives with the tables because it checks the bets too (wallets know nothing of tables)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site.money import display
from tables.selectors.bets import casino_reconciliation


class Command(BaseCommand):
    help = (
        "Check every player wallet against the sum of its ledger entries, each entry's balance_after, "
        "the zero sum of every transaction and of all entries, and the bets against their stake "
        "transactions, their outcomes and what the ledger credited for each round. Exits non-zero on any "
        "mismatch."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=20, help="Most problems listed per check.")

    def handle(self, *args: Any, **options: Any) -> None:
        report = casino_reconciliation(limit_per_check=options["limit"])
        self.stdout.write(
            f"{report.wallets} wallets, {report.transactions} transactions, {report.entries} entries; "
            f"players hold {display(report.player_total)}, the house {display(report.house_balance)}"
        )
        if not report.ok:
            for problem in report.problems:
                self.stderr.write(problem)
            raise CommandError(f"ledger does not reconcile: {len(report.problems)} problem(s)", returncode=1)
        self.stdout.write(self.style.SUCCESS("ledger reconciles"))
