"""Operator: close a table at the end of its round or shoe, reopen it, retire it or take it out of retirement
(``tables.services.controls``; docs/api.md, "Table lifecycle")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site.audit import add_reason_argument, from_command
from baccarat_site.errors import DomainError
from tables.models import Table
from tables.services import controls


class Command(BaseCommand):
    help = (
        "Close a table at the end of its current round (--at round, the default) or shoe (--at shoe); "
        "--reopen, --retire (a closed table) or --unretire instead. The reason is internal (audit trail)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("table_id", type=int)
        parser.add_argument("--at", choices=["round", "shoe"], default="round")
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--reopen", action="store_true")
        action.add_argument("--retire", action="store_true")
        action.add_argument("--unretire", action="store_true")
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        table_id, reason = options["table_id"], options["reason"]
        if not Table.objects.filter(pk=table_id).exists():
            raise CommandError(f"There is no table {table_id}.")
        try:
            with from_command(command="table_close", reason=reason):
                if options["reopen"]:
                    done = controls.table_reopen(table_id=table_id, reason=reason)
                    said = "reopened" if done["reopened"] else "close called off" if done["close_called_off"] else None
                elif options["retire"]:
                    said = "retired" if controls.table_retire(table_id=table_id, reason=reason) else None
                elif options["unretire"]:
                    said = (
                        "out of retirement, closed"
                        if controls.table_unretire(table_id=table_id, reason=reason)
                        else None
                    )
                else:
                    done = controls.table_close(table_id=table_id, when=options["at"], reason=reason)
                    said = (
                        "closed"
                        if done["closed"]
                        else f"closes at the end of the {options['at']}"
                        if done["closing"]
                        else None
                    )
        except DomainError as error:
            raise CommandError(error.detail) from error
        if said is None:
            self.stdout.write(f"table {table_id}: nothing to do")
        else:
            self.stdout.write(self.style.SUCCESS(f"table {table_id} {said}"))
