"""``manage.py create_player NAME --password P --reason TEXT [--deposit AMOUNT]`` for scripts and load tests.

The name and password pass the same checks as the sign-up page (Django's username rules and the project's
password validators). The new account and the deposit are audited with the OS user and the reason."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from baccarat_site import money
from baccarat_site.accounts.forms import SignupForm
from baccarat_site.audit import add_reason_argument, from_command
from baccarat_site.errors import DomainError
from wallets import services


class Command(BaseCommand):
    help = "Create a player (and an empty wallet); with --deposit, credit play money through the ledger."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--password", required=True)
        parser.add_argument("--deposit", help="An amount like 1000.00, credited from the house.")
        add_reason_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        name, password, deposit = options["name"], options["password"], options["deposit"]
        user_model = get_user_model()
        try:
            with from_command(command="create_player", reason=options["reason"]), transaction.atomic():
                if user_model.objects.filter(username=name).exists():
                    raise CommandError(f"a user named {name!r} already exists")
                # The sign-up page's own form: the same username rules and password validators.
                form = SignupForm(data={"username": name, "password1": password, "password2": password})
                if not form.is_valid():
                    problems = [
                        f"{field}: {message}" for field, messages in form.errors.items() for message in messages
                    ]
                    raise CommandError("; ".join(problems))
                user = form.save()
                services.wallet_for(user=user)
                if deposit:
                    services.wallet_deposit(
                        user=user, amount=deposit, reason=f"Initial deposit (create_player): {options['reason']}"[:200]
                    )
        except DomainError as exc:
            raise CommandError(f"{exc.code}: {exc.detail}") from exc
        balance = services.wallet_for(user=user).balance
        self.stdout.write(self.style.SUCCESS(f"created {name} (id {user.pk}), balance {money.display(balance)}"))
