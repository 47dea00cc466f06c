"""Operator: resume a paused table; a paused round continues from its persisted cards."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site.audit import add_reason_argument, from_command
from tables.models import Table
from tables.services.controls import table_resume


class Command(BaseCommand):
    help = "Resume a paused table: a paused round continues from the cards already dealt, else the next round opens."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_id", type=int)
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        if not Table.objects.filter(pk=options["table_id"]).exists():
            raise CommandError(f"There is no table {options['table_id']}.")
        with from_command(command="table_resume", reason=options["reason"]):
            done = table_resume(table_id=options["table_id"], reason=options["reason"])
        if not done["resumed"]:
            hint = f" (round {done['round_id']} needs round_cancel)" if done["round_id"] else ""
            raise CommandError(f"table {options['table_id']} was not resumed{hint}")
        what = f"; round {done['round_id']} continues" if done["round_id"] else ""
        self.stdout.write(self.style.SUCCESS(f"table {options['table_id']} resumed{what}"))
