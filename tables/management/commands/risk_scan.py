"""Operator: raise the risk alerts of recent rounds again (idempotent), e.g. after the broker lost the scan tasks."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.services.risk import risk_scan_recent


class Command(BaseCommand):
    help = (
        "Scan every round whose betting closed in the last HOURS for risk alerts (large bets and wins, exposure, "
        "linked accounts); an alert already raised is not raised twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hours", type=float, default=24.0, help="How far back (default 24).")

    def handle(self, *args: Any, **options: Any) -> None:
        hours = options["hours"]
        if not 0 < hours <= 24 * 31:
            raise CommandError("--hours must be more than 0 and at most 744 (31 days).")
        rounds, raised = risk_scan_recent(hours=hours)
        self.stdout.write(self.style.SUCCESS(f"{rounds} round(s) scanned; {raised} new alert(s)"))
