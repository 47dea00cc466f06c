"""Bets, read-only: search by player or round id, filters, and a streamed CSV export of the selected bets (an
action) or of the whole filtered list (the "Export CSV" button)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect, StreamingHttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.safestring import SafeString

from baccarat_site import csvexport
from baccarat_site.adminkit import ReadOnlyAdmin
from tables.admin_records.display import change_link, id_term
from tables.models import Bet
from tables.selectors.outcomes import bet_payout

BET_CSV_HEADER = (
    "id",
    "placed_at",
    "player",
    "table",
    "round_id",
    "shoe",
    "round_number",
    "type",
    "mode",
    "amount",
    "status",
    "payout",
)


def bet_csv_row(bet: Bet) -> list[object]:
    """One bet's cells (written by :mod:`baccarat_site.csvexport`): times in ISO 8601 (UTC), amounts plain."""
    return [
        bet.pk,
        bet.placed_at,
        bet.user.get_username(),
        bet.round.table.name,
        bet.round_id,
        bet.round.shoe.number,
        bet.round.number,
        bet.type,
        bet.mode,
        bet.amount,
        bet.status,
        bet.payout,
    ]


def bet_csv_rows(queryset: QuerySet[Bet]) -> Iterator[list[object]]:
    """The bets' rows, read from the database as they are sent."""
    rows = queryset.select_related("user", "round__table", "round__shoe", "outcome").only(
        "id",
        "placed_at",
        "type",
        "mode",
        "amount",
        "round_id",
        "outcome__status",
        "outcome__odds",
        "user__username",
        "round__number",
        "round__table__name",
        "round__shoe__number",
    )
    return (bet_csv_row(bet) for bet in rows.iterator(chunk_size=2000))


def bet_csv_response(request: HttpRequest, queryset: QuerySet[Bet]) -> StreamingHttpResponse:
    return csvexport.response(request, filename="bets.csv", header=BET_CSV_HEADER, rows=bet_csv_rows(queryset))


class BetStatusFilter(admin.SimpleListFilter):
    """A bet's status: its kind's outcome on its round, or open while there is none."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(value, str(label)) for value, label in Bet.Status.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Bet]) -> QuerySet[Bet]:
        value = self.value()
        if value == Bet.Status.OPEN:
            return queryset.filter(outcome__status__isnull=True)
        if value in Bet.Status.values:
            return queryset.filter(outcome__status=value)
        return queryset


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "user",
        "table",
        "round_link",
        "type",
        "mode",
        "amount",
        "status",
        "payout",
        "placed_at",
    )
    list_filter = (BetStatusFilter, "type", "mode", "round__table")
    list_select_related = ("user", "round__table", "round__shoe", "outcome")
    search_fields = ("user__username", "=round__id")
    search_help_text = "A player's username, or a round id (1234 or #1234)."
    date_hierarchy = "placed_at"
    show_full_result_count = False
    actions = ("export_csv",)
    fields = (
        "id",
        "user",
        "round_link",
        "table",
        "type",
        "mode",
        "amount",
        "status",
        "payout",
        "placement",
        "settlement_transaction",
        "placed_at",
        "settled_at",
    )
    readonly_fields = fields

    @admin.display(description="Status", ordering="outcome__status")
    def status(self, bet: Bet) -> str:
        return bet.get_status_display()

    @admin.display(description="Payout", ordering=bet_payout())
    def payout(self, bet: Bet) -> Decimal | None:
        return bet.payout

    @admin.display(description="Settlement transaction")
    def settlement_transaction(self, bet: Bet) -> SafeString | str:
        txn = bet.round.settlement_transaction if bet.settlement_transaction_id else None
        return "-" if txn is None else change_link(txn, str(txn))

    @admin.display(description="Settled at", ordering=Coalesce("round__settled_at", "round__cancelled_at"))
    def settled_at(self, bet: Bet) -> datetime | None:
        return bet.settled_at

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Bet], search_term: str
    ) -> tuple[QuerySet[Bet], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        match = Q(user__username__icontains=term)
        round_id = id_term(term)
        if round_id is not None:
            match |= Q(round_id=round_id)
        return queryset.filter(match), False

    @admin.display(description="Table", ordering="round__table__name")
    def table(self, bet: Bet) -> str:
        return bet.round.table.name

    @admin.display(description="Round", ordering="round_id")
    def round_link(self, bet: Bet) -> SafeString:
        return change_link(bet.round, f"#{bet.round_id} (shoe {bet.round.shoe.number}, round {bet.round.number})")

    @admin.action(description="Export the selected bets as CSV", permissions=["view"])
    def export_csv(self, request: HttpRequest, queryset: QuerySet[Bet]) -> StreamingHttpResponse:
        return bet_csv_response(request, queryset.order_by("-placed_at", "-id"))

    def get_urls(self) -> list[URLPattern]:
        export = path(
            "export.csv",
            self.admin_site.admin_view(self.export_view),
            name=f"{self.opts.app_label}_{self.opts.model_name}_export",
        )
        return [export, *super().get_urls()]

    def export_view(self, request: HttpRequest) -> HttpResponseBase:
        """Every bet of the list as filtered and searched (its query string), as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return HttpResponseRedirect(reverse("admin:tables_bet_changelist") + "?e=1")
        return bet_csv_response(request, changelist.queryset)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        query = request.GET.copy()
        query.pop("p", None)
        export_url = reverse("admin:tables_bet_export")
        if query:
            export_url += "?" + query.urlencode()
        return super().changelist_view(request, {"export_url": export_url, **(extra_context or {})})
