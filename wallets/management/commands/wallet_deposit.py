"""``manage.py wallet_deposit NAME AMOUNT --reason TEXT``: an operator credits play money."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from baccarat_site import money
from baccarat_site.audit import add_reason_argument, from_command
from baccarat_site.errors import DomainError
from wallets import services


class Command(BaseCommand):
    help = "Credit AMOUNT of play money to player NAME from the house, through the ledger."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("amount", help="Like 250.00: positive, at most two decimals.")
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["name"]).first()
        if user is None:
            raise CommandError(f"no user named {options['name']!r}")
        try:
            with from_command(command="wallet_deposit", reason=options["reason"]):
                txn = services.wallet_deposit(
                    user=user, amount=options["amount"], reason=options["reason"], reference="operator:command"
                )
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.detail}") from exc
        balance = services.wallet_for(user=user).balance
        self.stdout.write(
            self.style.SUCCESS(f"deposited (transaction {txn.pk}); {user.username} now has {money.display(balance)}")
        )
