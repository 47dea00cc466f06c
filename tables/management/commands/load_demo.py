"""Idempotent demo data: one table per variant, a live-dealer table, three funded players, one staff account per
role (the demo dealer on shift at the live table).

What it writes is audited like an operator's command (``baccarat_site.audit.from_command``: the OS user and
the fixed reason ``DEMO_REASON``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from baccarat_site import roles
from baccarat_site.audit import from_command
from tables.engine import BET_TYPES
from tables.models import Table, Variant
from tables.services.variants import variant_create
from wallets import services as wallet_services
from wallets.models import LedgerTransaction

DEMO_PLAYERS = ("demo1", "demo2", "demo3")
DEMO_PASSWORD = "demo-pass-123"  # noqa: S105 - published demo login
OPERATOR = ("operator", "operator-pass-123")
#: One staff account per role (baccarat_site/roles.py): username, password (published demo logins), group.
STAFF = (
    (*OPERATOR, roles.TABLE_OPERATORS),
    ("cashier", "cashier-pass-123", roles.CASHIERS),
    ("supervisor", "supervisor-pass-123", roles.SUPERVISORS),
    ("auditor", "auditor-pass-123", roles.AUDITORS),
    ("dealer", "dealer-pass-123", roles.DEALERS),
)
#: The live-dealer demo table and its dealer on shift (a login of STAFF).
LIVE_TABLE = "Live Baccarat 1"
DEALER = "dealer"
DEMO_DEPOSIT = Decimal("10000.00")
DEMO_REFERENCE = "demo:initial"
DEMO_REASON = "Demo data (load_demo)"

MAIN_BETS = ("player", "banker", "tie")
# Mini Baccarat: lower limits on every bet type the engine knows.
MINI_LIMITS = {t: {"min": "1.00", "max": "1000.00" if t in MAIN_BETS else "100.00"} for t in BET_TYPES}


class Command(BaseCommand):
    help = (
        "Create the demo tables (one dealt by a live dealer), players (10,000.00 each, through the ledger) and staff "
        "(one account per role, the dealer on shift at the live table); safe to run twice."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with from_command(command="load_demo", reason=DEMO_REASON):
            self._load()
        self.stdout.write(
            self.style.SUCCESS(
                f"demo data ready: tables (one live: {LIVE_TABLE}, dealt by {DEALER}), demo1-3 (10,000.00 each), "
                "operator, cashier, supervisor, auditor, dealer"
            )
        )

    def _load(self) -> None:
        user_model = get_user_model()
        # Least privilege: each demo staff account is in one role's group (made by a migration), none a superuser.
        for username, password, role in STAFF:
            staff, created = user_model.objects.get_or_create(username=username, defaults={"is_staff": True})
            if created:
                staff.set_password(password)
                staff.save(update_fields=["password"])
            staff.groups.add(Group.objects.get(name=role))

        with transaction.atomic():
            baccarat = Variant.objects.filter(name="Baccarat").first() or variant_create(name="Baccarat", decks=8)
            mini = Variant.objects.filter(name="Mini Baccarat").first() or variant_create(
                name="Mini Baccarat", decks=6, limits=MINI_LIMITS, pb_difference_limit=Decimal("1000.00")
            )
            Table.objects.get_or_create(name="Baccarat 1", defaults={"variant": baccarat, "betting_seconds": 15})
            Table.objects.get_or_create(name="Mini Baccarat 1", defaults={"variant": mini, "betting_seconds": 12})
            # Dealt by hand at the dealer's console (/dealer/): the dealer scans the burn card and every card.
            Table.objects.get_or_create(
                name=LIVE_TABLE,
                defaults={
                    "variant": baccarat,
                    "betting_seconds": 20,
                    "dealing": Table.Dealing.LIVE,
                    "dealer": user_model.objects.get(username=DEALER),
                },
            )

        for name in DEMO_PLAYERS:
            user, created = user_model.objects.get_or_create(username=name)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
            already = LedgerTransaction.objects.filter(
                reference=f"{DEMO_REFERENCE}:{user.pk}", kind=LedgerTransaction.Kind.DEPOSIT
            ).exists()
            if not already:
                wallet_services.wallet_deposit(
                    user=user,
                    amount=DEMO_DEPOSIT,
                    reason="Demo play money",
                    reference=f"{DEMO_REFERENCE}:{user.pk}",
                )
