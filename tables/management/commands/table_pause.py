"""Operator: pause a table (docs/rules.md, "Disconnection and errors")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site.audit import add_reason_argument, from_command
from tables.models import Table
from tables.services.controls import table_pause


class Command(BaseCommand):
    help = (
        "Pause a table: no new rounds; a round still taking bets is cancelled and refunded, "
        "a round being dealt is paused until table_resume or round_cancel."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_id", type=int)
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        if not Table.objects.filter(pk=options["table_id"]).exists():
            raise CommandError(f"There is no table {options['table_id']}.")
        with from_command(command="table_pause", reason=options["reason"]):
            done = table_pause(table_id=options["table_id"], reason=options["reason"])
        if not done["paused"]:
            self.stdout.write(f"table {options['table_id']} was already paused")
            return
        what = f"; round {done['round_id']} {done['round']}" if done["round_id"] else ""
        self.stdout.write(self.style.SUCCESS(f"table {options['table_id']} paused{what}"))
