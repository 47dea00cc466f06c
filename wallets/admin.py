"""Wallets and the ledger in the admin.

Rows are read-only here: money moves only through ``wallets.services``. The wallet list shows each
wallet's balance next to its balance computed from its ledger entries ("Balance (from ledger)"), the
only balance the House has (its row is never updated on the bet path). Operators move money with the
Deposit, Withdraw and Adjust actions: each asks for an amount and a reason on an intermediate page,
then calls one service per selected wallet, all in one transaction (any refusal changes nothing);
the services write the ledger and the audit entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Min, Q, QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from baccarat_site import money
from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from wallets import selectors, services
from wallets.models import LedgerEntry, LedgerTransaction, Wallet

# Most wallets one action moves money for (they are locked together, in one transaction).
MAX_WALLETS_PER_ACTION = 100
REASON_HELP = "Why, in 5 to 200 characters: kept with the ledger transaction and in the audit trail."


def _amount(value: Decimal | None) -> str:
    return "—" if value is None else money.display(value)


# ── forms of the money actions ─────────────────────────────────────────────────────────────────────


class MoneyMovementForm(forms.Form):
    """A deposit's or withdrawal's amount (> 0, two decimals) and its mandatory reason."""

    amount = forms.DecimalField(
        max_digits=14,
        decimal_places=2,
        min_value=money.CENT,
        max_value=services.MAX_BALANCE,
        help_text="Greater than zero, at most two decimals, e.g. 250.00.",
    )
    reason = forms.CharField(
        min_length=5,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text=REASON_HELP,
    )

    def clean_amount(self) -> Decimal:
        return money.cents(self.cleaned_data["amount"])


class AdjustmentForm(MoneyMovementForm):
    """An adjustment's signed, non-zero amount and its mandatory reason."""

    amount = forms.DecimalField(
        max_digits=14,
        decimal_places=2,
        min_value=-services.MAX_BALANCE,
        max_value=services.MAX_BALANCE,
        help_text="Signed and non-zero, at most two decimals: 25.00 credits the player, -25.00 debits them.",
    )

    def clean_amount(self) -> Decimal:
        amount = super().clean_amount()
        if amount == 0:
            raise ValidationError("An adjustment cannot be zero: enter a positive or a negative amount.")
        return amount


@dataclass(frozen=True)
class Movement:
    name: str
    title: str
    form: type[MoneyMovementForm]
    service: Callable[..., LedgerTransaction]
    done: str  # "Deposited 10.00 CHIPS to alice" → format(amount=…, currency=…, user=…)


MOVEMENTS = {
    "deposit": Movement(
        "deposit",
        "Deposit play money",
        MoneyMovementForm,
        services.wallet_deposit,
        "Deposited {amount} {currency} to {user}",
    ),
    "withdraw": Movement(
        "withdraw",
        "Withdraw play money",
        MoneyMovementForm,
        services.wallet_withdraw,
        "Withdrew {amount} {currency} from {user}",
    ),
    "adjust": Movement(
        "adjust",
        "Adjust a balance",
        AdjustmentForm,
        services.wallet_adjust,
        "Adjusted {user}'s balance by {amount} {currency}",
    ),
}


class _Refused(Exception):
    def __init__(self, wallet: Wallet, error: DomainError) -> None:
        super().__init__(error.detail)
        self.wallet, self.error = wallet, error


# ── wallets ────────────────────────────────────────────────────────────────────────────────────────


class WalletChangeList(ChangeList):
    """Computes the page's balances from the ledger in one query."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        self.result_list = list(self.result_list)
        balances = selectors.wallet_ledger_balances(wallet_ids=[wallet.pk for wallet in self.result_list])
        for wallet in self.result_list:
            wallet.ledger_balance = balances[wallet.pk]


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "user",
        "kind",
        "stored_balance",
        "balance_from_ledger",
        "currency",
        "ledger_link",
        "created_at",
    )
    list_display_links = ("id", "user")
    list_filter = ("kind",)
    list_select_related = ("user",)
    search_fields = ("user__username",)
    fields = ("user", "kind", "currency", "stored_balance", "balance_from_ledger", "ledger_link", "created_at")
    readonly_fields = fields
    actions = ("deposit", "withdraw", "adjust")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return WalletChangeList

    @admin.display(description="Balance")
    def stored_balance(self, wallet: Wallet) -> str:
        if wallet.kind == Wallet.Kind.HOUSE:
            return "not kept: see Balance (from ledger)"
        return _amount(wallet.balance)

    @admin.display(description="Balance (from ledger)")
    def balance_from_ledger(self, wallet: Wallet) -> str:
        balance = getattr(wallet, "ledger_balance", None)
        if balance is None:
            balance = selectors.wallet_ledger_balance(wallet=wallet)
        return _amount(balance)

    @admin.display(description="Ledger")
    def ledger_link(self, wallet: Wallet) -> str:
        url = reverse("admin:wallets_ledgerentry_changelist") + f"?wallet__id__exact={wallet.pk}"
        return format_html('<a href="{}">Entries</a>', url)

    # Moving money needs ``wallets.move_money`` (Cashiers, Supervisors: baccarat_site/roles.py); rows stay read-only.
    def has_move_money_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("wallets.move_money")

    @admin.action(description="Deposit play money to the selected wallets…", permissions=["move_money"])
    def deposit(self, request: HttpRequest, queryset: QuerySet[Wallet]) -> HttpResponse | None:
        return self._move_money(request, queryset, MOVEMENTS["deposit"])

    @admin.action(description="Withdraw play money from the selected wallets…", permissions=["move_money"])
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Wallet]) -> HttpResponse | None:
        return self._move_money(request, queryset, MOVEMENTS["withdraw"])

    @admin.action(description="Adjust the balance of the selected wallets…", permissions=["move_money"])
    def adjust(self, request: HttpRequest, queryset: QuerySet[Wallet]) -> HttpResponse | None:
        return self._move_money(request, queryset, MOVEMENTS["adjust"])

    def _move_money(self, request: HttpRequest, queryset: QuerySet[Wallet], movement: Movement) -> HttpResponse | None:
        """The intermediate page of an action: the form, then one service call per wallet on a valid POST."""
        wallets = list(queryset.filter(kind=Wallet.Kind.PLAYER).select_related("user").order_by("pk"))
        house_selected = queryset.filter(kind=Wallet.Kind.HOUSE).exists()
        if not wallets:
            self.message_user(
                request,
                "Select player wallets: money moves between a player and the House, not to or from the House itself.",
                messages.ERROR,
            )
            return None
        if len(wallets) > MAX_WALLETS_PER_ACTION:
            self.message_user(
                request, f"Select at most {MAX_WALLETS_PER_ACTION} wallets for one money action.", messages.ERROR
            )
            return None

        if "apply" in request.POST:
            form = movement.form(request.POST)
            if form.is_valid() and self._apply(request, wallets, movement, form):
                return None  # back to the list, with a message per wallet
        else:
            form = movement.form()

        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": movement.title,
            "movement": movement,
            "form": form,
            "wallets": wallets,
            "house_selected": house_selected,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/wallets/money_action.html", context)

    def _apply(self, request: HttpRequest, wallets: list[Wallet], movement: Movement, form: MoneyMovementForm) -> bool:
        """Move the money for every wallet, or for none: a refusal becomes a form error."""
        amount, reason = form.cleaned_data["amount"], form.cleaned_data["reason"]
        try:
            with transaction.atomic():
                done = []
                for wallet in wallets:
                    try:
                        txn = movement.service(user=wallet.user, amount=amount, reason=reason, actor=request.user)
                    except DomainError as exc:
                        raise _Refused(wallet, exc) from exc
                    done.append((wallet, txn))
        except _Refused as refused:
            detail = f"{refused.wallet.user}: {refused.error.detail}"
            if len(wallets) > 1:
                detail += " Nothing was done for any of the selected wallets."
            field = "reason" if isinstance(refused.error, services.MissingReason) else "amount"
            form.add_error(field, detail)
            return False

        balances = dict(
            LedgerEntry.objects.filter(
                transaction_id__in=[txn.pk for _, txn in done], balance_after__isnull=False
            ).values_list("transaction_id", "balance_after")
        )
        for wallet, txn in done:
            what = movement.done.format(amount=_amount(amount), currency=wallet.currency, user=wallet.user)
            self.message_user(
                request,
                f"{what}: balance {_amount(balances.get(txn.pk))} (ledger transaction #{txn.pk}).",
                messages.SUCCESS,
            )
        return True


# ── the ledger ─────────────────────────────────────────────────────────────────────────────────────


if TYPE_CHECKING:  # Django's admin classes are generic only in django-stubs.
    _LedgerEntryInlineBase = admin.TabularInline[LedgerEntry, LedgerTransaction]
else:
    _LedgerEntryInlineBase = admin.TabularInline


class LedgerEntryInline(_LedgerEntryInlineBase):
    model = LedgerEntry
    extra = 0
    can_delete = False
    fields = ("wallet", "amount", "balance_after", "created_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[LedgerEntry]:
        return super().get_queryset(request).select_related("wallet__user")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "player", "player_amount", "reference", "reason", "actor", "created_at")
    list_filter = ("kind", "created_at")
    search_fields = ("reference", "entries__wallet__user__username")
    list_select_related = ("actor",)
    show_full_result_count = False
    inlines = (LedgerEntryInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[LedgerTransaction]:
        # A round's settlement is one transaction with a leg per paid player: count and sum the legs in the
        # database rather than load thousands of them for one row of the list.
        player = Q(entries__wallet__kind=Wallet.Kind.PLAYER)
        transactions: QuerySet[LedgerTransaction] = super().get_queryset(request)
        return transactions.annotate(
            player_legs=Count("entries", filter=player),
            player_total=Sum("entries__amount", filter=player),
            first_player=Min("entries__wallet__user__username", filter=player),
        )

    @admin.display(description="Player")
    def player(self, txn: LedgerTransaction) -> str:
        legs = getattr(txn, "player_legs", 0)
        if legs > 1:
            return f"{legs:,} players"
        return getattr(txn, "first_player", None) or "—"

    @admin.display(description="Player's amount")
    def player_amount(self, txn: LedgerTransaction) -> str:
        legs = getattr(txn, "player_legs", 0)
        if not legs:
            return "—"
        total = f"{txn.player_total:+,.2f}"  # type: ignore[attr-defined]
        return f"{total} in all" if legs > 1 else total


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "kind", "wallet_owner", "amount", "balance_after", "reference", "created_at")
    list_filter = ("transaction__kind", "wallet__kind", "created_at")
    search_fields = ("wallet__user__username", "transaction__reference")
    list_select_related = ("transaction", "wallet__user")
    show_full_result_count = False

    @admin.display(description="Kind", ordering="transaction__kind")
    def kind(self, entry: LedgerEntry) -> str:
        return entry.transaction.get_kind_display()

    @admin.display(description="Wallet", ordering="wallet")
    def wallet_owner(self, entry: LedgerEntry) -> str:
        return "House" if entry.wallet.kind == Wallet.Kind.HOUSE else str(entry.wallet.user)

    @admin.display(description="Reference", ordering="transaction__reference")
    def reference(self, entry: LedgerEntry) -> str:
        return entry.transaction.reference
