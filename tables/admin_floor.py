"""Operators' pages inside the admin: the live floor and the daily reports (HTML and CSV).

Thin views: a form validates the GET filters, a selector in ``tables.selectors.reports`` computes, and one
column list renders both the HTML table and the CSV, so the two always show the same figures. Every view is
wrapped in ``admin.site.admin_view`` (staff only; anyone else goes to the admin login).

Mount them with ``path("admin/floor/", include("tables.admin_floor"))`` before ``admin.site.urls``
(namespace ``admin_floor``), or add :func:`admin_urls` to the admin site's URLs: the pages find each other
through the namespace they were resolved in, so either works.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.http import urlencode

from tables.models import Round, Table
from tables.selectors import reports

app_name = "admin_floor"

MAX_RANGE_DAYS = 366
DEFAULT_RANGE_DAYS = 7
REFRESH_SECONDS = 2


# ── formatting: one column list for HTML and CSV ────────────────────────────


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return f"{value:.2f}"  # plain 1234.50, no thousands separator
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _html_value(value: Any, kind: str) -> str:
    if value is None:
        return "—"
    if kind == "money":
        return f"{value:,.2f}"
    return _csv_value(value)


@dataclass(frozen=True)
class Column:
    header: str
    attr: str
    kind: str = "text"  # text | int | money | pct

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


TABLE_COLUMNS = (
    Column("Date", "day"),
    Column("Table", "table_name"),
    Column("Rounds settled", "rounds", "int"),
    Column("Bets", "bets", "int"),
    Column("Turnover", "turnover", "money"),
    Column("Payouts", "payouts", "money"),
    Column("GGR", "ggr", "money"),
    Column("Hold %", "hold_pct", "pct"),
    Column("Theoretical hold %", "theoretical_hold_pct", "pct"),
)

PLAYER_COLUMNS = (
    Column("Date", "day"),
    Column("Player", "username"),
    Column("Opening balance", "opening", "money"),
    Column("Stakes", "stakes", "money"),
    Column("Payouts", "payouts", "money"),
    Column("Refunds", "refunds", "money"),
    Column("Deposits and other", "other", "money"),
    Column("Closing balance", "closing", "money"),
)


def _html_rows(rows: list[Any], columns: tuple[Column, ...]) -> list[list[tuple[str, bool]]]:
    return [[(_html_value(getattr(row, c.attr), c.kind), c.numeric) for c in columns] for row in rows]


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_response(rows: list[Any], columns: tuple[Column, ...], filename: str) -> HttpResponse:
    writer = csv.writer(_Echo())
    lines = [writer.writerow([c.header for c in columns])]
    lines.extend(writer.writerow([_csv_value(getattr(row, c.attr)) for c in columns]) for row in rows)
    response = HttpResponse("".join(lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# ── links ───────────────────────────────────────────────────────────────────


def _url(request: HttpRequest, name: str, **kwargs: Any) -> str:
    """A URL of this module, in the namespace the current page was resolved in."""
    namespace = request.resolver_match.namespace if request.resolver_match else ""
    return reverse(f"{namespace}:{name}" if namespace else name, **kwargs)


def _optional_url(name: str, *args: Any) -> str | None:
    """A link to a page that may not exist yet (another part of the admin): None when it does not."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _nav(request: HttpRequest) -> list[tuple[str, str]]:
    return [
        ("Live floor", _url(request, "floor_live")),
        ("Tables by day", _url(request, "floor_tables_report")),
        ("Players by day", _url(request, "floor_players_report")),
    ]


def _require(request: HttpRequest, *perms: str) -> None:
    if not request.user.has_perms(perms):
        raise PermissionDenied


def _page(request: HttpRequest, template: str, title: str, **context: Any) -> TemplateResponse:
    return TemplateResponse(
        request,
        template,
        {**admin.site.each_context(request), "title": title, "floor_nav": _nav(request), **context},
    )


# ── the live floor ──────────────────────────────────────────────────────────


def _floor_links(row: reports.FloorTable) -> list[tuple[str, str]]:
    table, round_ = row.table, row.round
    wanted = []
    if table.status == Table.Status.PAUSED:
        wanted.append(("Resume", "admin:tables_table_resume"))
    elif table.status == Table.Status.OPEN:
        wanted.append(("Pause", "admin:tables_table_pause"))
        wanted.append(("Close after round", "admin:tables_table_close_round"))
    elif table.status == Table.Status.CLOSED:
        wanted.append(("Reopen", "admin:tables_table_reopen"))
    if round_ is not None and round_.state not in Round.FINAL_STATES:
        wanted.append(("Cancel round", "admin:tables_table_cancel_round"))
    links = [(label, url) for label, name in wanted if (url := _optional_url(name, table.pk))]
    return links


def floor_view(request: HttpRequest) -> TemplateResponse:
    """Every table live, refreshed every few seconds (``?refresh=0`` stops it)."""
    _require(request, "tables.view_table", "tables.view_bet")
    try:
        refresh = min(max(int(request.GET.get("refresh", REFRESH_SECONDS)), 0), 60)
    except ValueError:
        refresh = REFRESH_SECONDS
    rows = reports.live_floor()
    for row in rows:
        row.links = _floor_links(row)  # type: ignore[attr-defined]
        row.change_url = _optional_url("admin:tables_table_change", row.table.pk)  # type: ignore[attr-defined]
    return _page(
        request,
        "admin/floor/live.html",
        "Live floor",
        rows=rows,
        refresh=refresh,
        today=reports.utc_today(),
        pause_url=_url(request, "floor_live") + "?refresh=0",
    )


# ── reports ─────────────────────────────────────────────────────────────────


class DateRangeForm(forms.Form):
    date_from = forms.DateField(required=False, label="From (UTC)", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To (UTC)", widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns (its stub says "or None")
        if self.errors:
            return data
        today = reports.utc_today()
        date_to = data.get("date_to") or today
        date_from = data.get("date_from") or date_to - timedelta(days=DEFAULT_RANGE_DAYS - 1)
        if date_from > date_to:
            raise forms.ValidationError("“From” must not be after “To”.")
        if (date_to - date_from).days >= MAX_RANGE_DAYS:
            raise forms.ValidationError(f"Choose at most {MAX_RANGE_DAYS} days.")
        data["date_from"], data["date_to"] = date_from, date_to
        return data


class TableReportForm(DateRangeForm):
    table = forms.ModelChoiceField(Table.objects.order_by("name"), required=False, empty_label="All tables")


class PlayerReportForm(DateRangeForm):
    player = forms.CharField(required=False, max_length=150, label="Player (username)")


def _report(
    request: HttpRequest,
    *,
    form: DateRangeForm,
    columns: tuple[Column, ...],
    select: Callable[[dict[str, Any]], list[Any]],
    title: str,
    template: str,
    filename: str,
    extra: Callable[[list[Any]], dict[str, Any]] | None = None,
) -> HttpResponse:
    """Shared shape of a report: invalid filters → the page with the form's errors (200), never an error."""
    rows: list[Any] = []
    context: dict[str, Any] = {}
    if form.is_valid():
        data = form.cleaned_data
        rows = select(data)
        if request.GET.get("format") == "csv":
            return csv_response(rows, columns, f"{filename}-{data['date_from']}-{data['date_to']}.csv")
        query: dict[str, Any] = {k: v for k, v in request.GET.items() if k != "format"}
        context["csv_url"] = f"{request.path}?{urlencode({**query, 'format': 'csv'})}"
        context["date_from"], context["date_to"] = data["date_from"], data["date_to"]
        if extra is not None:
            context.update(extra(rows))
    return _page(
        request,
        template,
        title,
        form=form,
        headers=[(c.header, c.numeric) for c in columns],
        rows=_html_rows(rows, columns),
        row_count=len(rows),
        **context,
    )


def _table_totals(rows: list[reports.TableDay]) -> dict[str, Any]:
    if not rows:
        return {}
    totals = reports.table_report_totals(rows)
    cells = [("Total", False), ("", False)]
    cells += [(_html_value(getattr(totals, c.attr), c.kind), True) for c in TABLE_COLUMNS[2:]]
    return {"totals": cells}


def tables_report_view(request: HttpRequest) -> HttpResponse:
    """Per table and UTC day: rounds settled, bets, turnover, payouts, GGR, actual and theoretical hold."""
    _require(request, "tables.view_bet", "tables.view_round")
    return _report(
        request,
        form=TableReportForm(request.GET),
        columns=TABLE_COLUMNS,
        select=lambda d: reports.table_day_report(
            date_from=d["date_from"], date_to=d["date_to"], table_id=d["table"].pk if d["table"] else None
        ),
        title="Tables by day",
        template="admin/floor/report_tables.html",
        filename="tables-by-day",
        extra=_table_totals,
    )


def players_report_view(request: HttpRequest) -> HttpResponse:
    """Per player and UTC day, from the ledger: opening balance, stakes, payouts, refunds, other, closing."""
    _require(request, "wallets.view_ledgerentry", "wallets.view_wallet")
    return _report(
        request,
        form=PlayerReportForm(request.GET),
        columns=PLAYER_COLUMNS,
        select=lambda d: reports.player_day_report(
            date_from=d["date_from"], date_to=d["date_to"], username=d["player"].strip() or None
        ),
        title="Players by day",
        template="admin/floor/report_players.html",
        filename="players-by-day",
    )


# ── URLs ────────────────────────────────────────────────────────────────────


def admin_urls() -> list[URLPattern]:
    """The pages, each behind ``admin.site.admin_view`` (staff only)."""
    wrap = admin.site.admin_view
    return [
        path("", wrap(floor_view), name="floor_live"),
        path("reports/tables/", wrap(tables_report_view), name="floor_tables_report"),
        path("reports/players/", wrap(players_report_view), name="floor_players_report"),
    ]


urlpatterns = admin_urls()
