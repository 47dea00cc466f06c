"""Operator: cancel a live round and refund every stake."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site.audit import add_reason_argument, from_command
from baccarat_site.errors import DomainError
from tables.models import Round
from tables.services.controls import round_cancel


class Command(BaseCommand):
    help = (
        "Cancel a round that has not started dealing, or a paused one, and refund every bet on it; "
        "the table goes on (if open)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_id", type=int)
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        round_ = Round.objects.filter(pk=options["round_id"]).first()
        if round_ is None:
            raise CommandError(f"There is no round {options['round_id']}.")
        if round_.state in Round.FINAL_STATES:
            raise CommandError(f"round {round_.pk} is already {round_.state}")
        try:
            with from_command(command="round_cancel", reason=options["reason"]):
                refunded = round_cancel(round_id=round_.pk, reason=options["reason"])
        except DomainError as error:
            raise CommandError(error.detail) from None
        self.stdout.write(self.style.SUCCESS(f"round {round_.pk} cancelled; {refunded} bet(s) refunded"))
