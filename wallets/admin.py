"""Wallets and the ledger in the admin.

Rows are read-only here: money moves only through ``wallets.services``. The wallet list shows each
wallet's balance next to its balance computed from its ledger entries ("Balance (from ledger)"), the
only balance the House has (its row is never updated on the bet path). Staff with ``wallets.move_money``
(Cashiers, Supervisors) move money with the Deposit, Withdraw and Adjust actions: each asks for an amount, a
reason and carries a one-time key (``wallets.forms``) on an intermediate page, then calls one service per
selected wallet, all in one transaction (any refusal changes nothing); the services write the ledger and the
audit entry, apply a repeated key once, and turn a movement over the approval threshold (alone, or summed over
``MONEY_APPROVAL_WINDOW_HOURS`` per player and per member of staff, the action judged by its total) into a money
request. Money alerts (structuring: movements kept just under the threshold) are listed read-only.
The approvals queue (Money requests) lets a second member of staff with ``wallets.approve_money`` approve or
reject each request.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.db import transaction
from django.db.models import Case, Count, Min, Q, QuerySet, Sum, When
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from baccarat_site import money
from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from wallets import selectors, services
from wallets.forms import AdjustmentForm, DecisionForm, MoneyMovementForm
from wallets.models import LedgerEntry, LedgerTransaction, MoneyAlert, MoneyRequest, Wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Most wallets one action moves money for (they are locked together, in one transaction).
MAX_WALLETS_PER_ACTION = 100


def _amount(value: Decimal | None) -> str:
    return "—" if value is None else money.display(value)


@dataclass(frozen=True)
class Movement:
    name: str
    title: str
    form: type[MoneyMovementForm]
    kind: MoneyRequest.Kind
    done: str  # "Deposited 10.00 CHIPS to alice" → format(amount=…, currency=…, user=…)


MOVEMENTS = {
    "deposit": Movement(
        "deposit",
        "Deposit play money",
        MoneyMovementForm,
        MoneyRequest.Kind.DEPOSIT,
        "Deposited {amount} {currency} to {user}",
    ),
    "withdraw": Movement(
        "withdraw",
        "Withdraw play money",
        MoneyMovementForm,
        MoneyRequest.Kind.WITHDRAWAL,
        "Withdrew {amount} {currency} from {user}",
    ),
    "adjust": Movement(
        "adjust",
        "Adjust a balance",
        AdjustmentForm,
        MoneyRequest.Kind.ADJUSTMENT,
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
            "threshold": _amount(services.approval_threshold()),
            "window_hours": settings.MONEY_APPROVAL_WINDOW_HOURS,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/wallets/money_action.html", context)

    def _apply(self, request: HttpRequest, wallets: list[Wallet], movement: Movement, form: MoneyMovementForm) -> bool:
        """Move the money (or ask for approval) for every wallet, or for none: a refusal becomes a form error.

        The form's one-time key makes a repeated post report the first one's work instead of doing it again."""
        amount, reason, key = form.cleaned_data["amount"], form.cleaned_data["reason"], form.cleaned_data["key"]
        try:
            with transaction.atomic():
                done = []
                for wallet in wallets:
                    try:
                        outcome = services.wallet_move_once(
                            kind=movement.kind, user=cast("User", wallet.user), amount=amount, reason=reason, key=key,
                            actor=cast("User", request.user), batch_size=len(wallets),
                        )  # fmt: skip
                    except DomainError as exc:
                        raise _Refused(wallet, exc) from exc
                    done.append((wallet, outcome))
        except _Refused as refused:
            detail = f"{refused.wallet.user}: {refused.error.detail}"
            if len(wallets) > 1:
                detail += " Nothing was done for any of the selected wallets."
            field = "reason" if isinstance(refused.error, services.MissingReason) else "amount"
            form.add_error(None if isinstance(refused.error, services.InvalidKey) else field, detail)
            return False

        txn_ids = [outcome.transaction.pk for _, outcome in done if outcome.transaction is not None]
        balances = dict(
            LedgerEntry.objects.filter(transaction_id__in=txn_ids, balance_after__isnull=False).values_list(
                "transaction_id", "balance_after"
            )
        )
        for wallet, outcome in done:
            what = movement.done.format(amount=_amount(amount), currency=wallet.currency, user=wallet.user)
            again = "Already done, this form was sent before: " if outcome.repeated else ""
            if outcome.request is not None:
                asked = outcome.request
                why = outcome.why or (
                    f"it is above {_amount(services.approval_threshold())}, alone or with the staff movements of the "
                    f"last {settings.MONEY_APPROVAL_WINDOW_HOURS} hours"
                )
                self.message_user(
                    request,
                    f"{again}request #{asked.pk} ({what}) is {asked.get_status_display().lower()}: {why}, so it "
                    "needs the approval of another member of staff.",
                    messages.WARNING,
                )
            else:
                txn = outcome.transaction
                assert txn is not None
                self.message_user(
                    request,
                    f"{again}{what}: balance {_amount(balances.get(txn.pk))} (ledger transaction #{txn.pk}).",
                    messages.INFO if outcome.repeated else messages.SUCCESS,
                )
        return True


# ── money requests: four eyes ──────────────────────────────────────────────────────────────────────────


@admin.register(MoneyRequest)
class MoneyRequestAdmin(ReadOnlyAdmin):
    """The approvals queue: pending requests first; Approve and Reject for staff with ``wallets.approve_money``."""

    list_display = ("id", "status", "player", "kind", "signed_amount", "reason", "requested_by", "decided_by", "ledger")
    fields = (
        ("player", "kind", "signed_amount"), "reason", ("status", "ledger"), ("requested_by", "requested_at"),
        ("decided_by", "decided_at"), "decision_note",
    )  # fmt: skip
    readonly_fields = ("signed_amount", "ledger")
    list_filter = ("status", "kind")
    search_fields = ("player__username", "requested_by__username", "decided_by__username", "reason")
    list_select_related = ("player", "requested_by", "decided_by")
    actions = ("approve", "reject")

    def get_queryset(self, request: HttpRequest) -> QuerySet[MoneyRequest]:
        pending_first = Case(When(status=MoneyRequest.Status.PENDING, then=0), default=1)
        return super().get_queryset(request).order_by(pending_first, "-id")

    @admin.display(description="Amount", ordering="amount")
    def signed_amount(self, obj: MoneyRequest) -> str:
        return money.display(obj.amount, signed=True)

    @admin.display(description="Ledger")
    def ledger(self, obj: MoneyRequest) -> str:
        if obj.transaction_id is None:
            return "—"
        url = reverse("admin:wallets_ledgertransaction_change", args=[obj.transaction_id])
        return format_html('<a href="{}">#{}</a>', url, obj.transaction_id)

    def has_approve_money_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("wallets.approve_money")

    @admin.action(description="Approve and apply the selected requests…", permissions=["approve_money"])
    def approve(self, request: HttpRequest, queryset: QuerySet[MoneyRequest]) -> HttpResponse | None:
        return self._decide(request, queryset, approve=True)

    @admin.action(description="Reject the selected requests…", permissions=["approve_money"])
    def reject(self, request: HttpRequest, queryset: QuerySet[MoneyRequest]) -> HttpResponse | None:
        return self._decide(request, queryset, approve=False)

    def _decide(self, request: HttpRequest, queryset: QuerySet[MoneyRequest], *, approve: bool) -> HttpResponse | None:
        chosen = list(queryset.select_related("player", "requested_by").order_by("pk"))
        form = DecisionForm(request.POST if "apply" in request.POST else None, note_required=not approve)
        if form.is_valid():
            note = form.cleaned_data["note"]
            for asked in chosen:  # each on its own: one request's refusal does not hold back the others
                try:
                    if approve:
                        services.money_request_approve(request_id=asked.pk, actor=cast("User", request.user), note=note)
                    else:
                        services.money_request_reject(request_id=asked.pk, actor=cast("User", request.user), note=note)
                except DomainError as error:
                    self.message_user(request, f"Request #{asked.pk}: {error.detail}", messages.ERROR)
                else:
                    done = "approved and applied" if approve else "rejected"
                    self.message_user(request, f"Request #{asked.pk} {done}.", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Approve money requests" if approve else "Reject money requests",
            "approve": approve,
            "form": form,
            "requests": chosen,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "action": "approve" if approve else "reject",
        }
        return TemplateResponse(request, "admin/wallets/moneyrequest/decide.html", context)


# ── money alerts: structuring ───────────────────────────────────────────────────────────────────────────


@admin.register(MoneyAlert)
class MoneyAlertAdmin(ReadOnlyAdmin):
    """Staff movements kept just under the approval threshold, one after another (``wallets.services``); open ones
    first."""

    list_display = ("created_at", "kind", "player", "actor", "count", "total", "detail", "acknowledged_by")
    list_filter = ("kind", ("acknowledged_at", admin.EmptyFieldListFilter))
    list_select_related = ("player", "actor", "acknowledged_by")
    search_fields = ("player__username", "actor__username")

    actions = ("acknowledge",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[MoneyAlert]:
        open_first = Case(When(acknowledged_at__isnull=True, then=0), default=1)
        return super().get_queryset(request).order_by(open_first, "-created_at", "-id")

    @admin.display(description="Total", ordering="amount")
    def total(self, alert: MoneyAlert) -> str:
        return money.display(alert.amount)

    def has_acknowledge_moneyalert_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("wallets.acknowledge_moneyalert")

    @admin.action(description="Acknowledge the selected alerts", permissions=["acknowledge_moneyalert"])
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[MoneyAlert]) -> None:
        for alert in queryset.order_by("pk"):
            try:
                services.money_alert_acknowledge(alert_id=alert.pk, actor=cast("User", request.user))
            except DomainError as error:
                self.message_user(request, f"Alert #{alert.pk}: {error.detail}", messages.ERROR)
            else:
                self.message_user(request, f"Alert #{alert.pk} acknowledged.", messages.SUCCESS)


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
        total = money.display(txn.player_total, signed=True)  # type: ignore[attr-defined]
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
