"""Operators' pages inside the admin: the live floor and the daily reports (HTML and CSV).

Thin views: a form validates the GET filters, a selector in ``tables.selectors.reports`` computes, and one
column list renders both the HTML table and the CSV, so the two always show the same figures. Every view is
wrapped in ``admin.site.admin_view`` (staff only; anyone else goes to the admin login).

Mount them with ``path("admin/floor/", include("tables.admin_floor"))`` before ``admin.site.urls``
(namespace ``admin_floor``), or add :func:`admin_urls` to the admin site's URLs: the pages find each other
through the namespace they were resolved in, so either works.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.validators import MaxValueValidator, MinValueValidator
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.http import urlencode

from baccarat_site import csvexport
from baccarat_site.db_router import replica_tolerant
from baccarat_site.money import CENT, display
from tables.admin_chat import delete_link, mute_link
from tables.admin_risk import acknowledge_link, player_links, round_link
from tables.admin_supervisor import answer_links, round_text, voidable
from tables.models import Round, Table
from tables.selectors import reports
from tables.selectors import risk as risk_selectors
from tables.selectors.chat import floor_messages
from tables.selectors.supervisor import open_calls

app_name = "admin_floor"

MAX_RANGE_DAYS = 366
DEFAULT_RANGE_DAYS = 7
REFRESH_SECONDS = 2


# ── formatting: one column list for HTML and CSV ────────────────────────────


def _html_value(value: Any, kind: str) -> str:
    if value is None:
        return "—"
    if kind == "money":
        return display(value)
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


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


def _csv_cells(value: Any, kind: str) -> Any:
    """A value for :mod:`baccarat_site.csvexport`: amounts and percentages as two-place decimals (1234.50)."""
    if isinstance(value, Decimal) and kind in ("money", "pct"):
        return value.quantize(CENT)
    return value


def csv_response(
    request: HttpRequest, rows: list[Any], columns: tuple[Column, ...], filename: str
) -> StreamingHttpResponse:
    return csvexport.response(
        request,
        filename=filename,
        header=[c.header for c in columns],
        rows=([_csv_cells(getattr(row, c.attr), c.kind) for c in columns] for row in rows),
    )


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


@dataclass(frozen=True)
class BackOfficePage:
    """A page of the back office and who may open it: any one of ``perms`` (each a set all of which are needed)."""

    label: str
    url_names: tuple[str, ...]  # tried in turn; the first that reverses is the link
    perms: tuple[tuple[str, ...], ...]
    description: str
    query: str = ""


#: The operators' pages beyond the model lists, in the order the admin home and the floor's menu show them.
BACK_OFFICE = (
    BackOfficePage(
        "Live floor",
        ("admin_floor:floor_live", "admin:floor_live"),
        (("tables.view_table", "tables.view_bet"),),
        "Every table now: round, countdown, players, stakes, worst-case exposure, GGR today, open risk alerts.",
    ),
    BackOfficePage(
        "Tables by day",
        ("admin_floor:floor_tables_report", "admin:floor_tables_report"),
        (("tables.view_bet", "tables.view_round"),),
        "Per table and UTC day: rounds, bets, turnover, payouts, GGR, actual and theoretical hold (CSV too).",
    ),
    BackOfficePage(
        "Players by day",
        ("admin_floor:floor_players_report", "admin:floor_players_report"),
        (("wallets.view_ledgerentry", "wallets.view_wallet"),),
        "Per player and UTC day, from the ledger: opening balance, stakes, payouts, refunds, closing (CSV too).",
    ),
    BackOfficePage(
        "Risk alerts",
        ("admin:tables_riskalert_changelist",),
        (("tables.view_riskalert",),),
        "Large bets and wins, table exposure, linked accounts on both sides of a round: open ones first.",
        "?status=open",
    ),
    BackOfficePage(
        "Approvals",
        ("admin:wallets_moneyrequest_changelist",),
        (("wallets.approve_money",), ("wallets.view_moneyrequest",)),
        "Money requests over the approval threshold, waiting for a second member of staff.",
    ),
)


def back_office_links(request: HttpRequest) -> list[tuple[str, str, str]]:
    """``[(label, url, description)]`` of the back-office pages ``request.user`` may use (and that exist)."""
    user = request.user
    links = []
    for page in BACK_OFFICE:
        if not any(user.has_perms(perms) for perms in page.perms):
            continue
        url = next((u for name in page.url_names if (u := _optional_url(name)) is not None), None)
        if url is not None:
            links.append((page.label, url + page.query, page.description))
    return links


def _nav(request: HttpRequest) -> list[tuple[str, str]]:
    return [(label, url) for label, url, _description in back_office_links(request)]


def _require(request: HttpRequest, *perms: str) -> None:
    if not request.user.has_perms(perms):
        raise PermissionDenied


def _page(request: HttpRequest, template: str, title: str, *, status: int = 200, **context: Any) -> TemplateResponse:
    return TemplateResponse(
        request,
        template,
        {**admin.site.each_context(request), "title": title, "floor_nav": _nav(request), **context},
        status=status,
    )


# ── the live floor ──────────────────────────────────────────────────────────


def _floor_links(row: reports.FloorTable, request: HttpRequest, called: set[int]) -> list[tuple[str, str]]:
    """The controls the table's status allows, for staff who may use them (none for an auditor). A live table
    waiting for its supervisor (``called``: the tables with an open call) is answered from its call, above: a
    plain Resume would leave the call open."""
    table, round_ = row.table, row.round
    if not request.user.has_perm("tables.change_table") or table.pk in called:
        return []
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
    calls = _floor_calls(request)
    called = {call.table_id for call in calls.get("calls", ())}
    for row in rows:
        row.links = _floor_links(row, request, called)  # type: ignore[attr-defined]
        row.called = row.table.pk in called  # type: ignore[attr-defined]
        row.change_url = _optional_url("admin:tables_table_change", row.table.pk)  # type: ignore[attr-defined]
    return _page(
        request,
        "admin/floor/live.html",
        "Live floor",
        rows=rows,
        refresh=refresh,
        today=reports.utc_today(),
        pause_url=_url(request, "floor_live") + "?refresh=0",
        **calls,
        **_floor_alerts(request),
        **_floor_chat(request),
    )


def _floor_calls(request: HttpRequest) -> dict[str, Any]:
    """The live tables' open supervisor calls, oldest first, with Resume and Void for staff who may answer them
    (``tables.supervise_table``); staff who may only view them see them without buttons."""
    if not request.user.has_perm("tables.view_supervisorcall"):
        return {}
    calls = open_calls()
    for call in calls:
        call.answers = answer_links(request, call, floor=True)  # type: ignore[attr-defined]
        call.round_text = round_text(call)  # type: ignore[attr-defined]
        call.voidable = voidable(call)  # type: ignore[attr-defined]
        if call.round_id and request.user.has_perm("tables.view_round"):
            call.round_url = _optional_url("admin:tables_round_change", call.round_id)  # type: ignore[attr-defined]
    return {
        "calls": calls,
        "show_calls": True,
        "calls_url": _optional_url("admin:tables_supervisorcall_changelist"),
    }


def _floor_alerts(request: HttpRequest) -> dict[str, Any]:
    """The open risk alerts, newest first, with their links (for staff who may see them)."""
    if not request.user.has_perm("tables.view_riskalert"):
        return {}

    alerts, count = risk_selectors.open_alerts()
    for alert in alerts:
        alert.round_url = round_link(request, alert)  # type: ignore[attr-defined]
        alert.players = player_links(request, alert)  # type: ignore[attr-defined]
        ack = acknowledge_link(request, alert)
        alert.ack_url = f"{ack}?next=floor" if ack else None  # type: ignore[attr-defined]
    return {
        "alerts": alerts,
        "alerts_open": count,
        "alerts_url": _optional_url("admin:tables_riskalert_changelist"),
        "show_alerts": True,
    }


def _floor_chat(request: HttpRequest) -> dict[str, Any]:
    """The tables' latest chat messages with Delete and Mute links (tables.admin_chat), for staff who may read
    the chat; the links only for those who may moderate it."""
    if not request.user.has_perm("tables.view_chatmessage"):
        return {}

    chat = floor_messages()
    for message in chat:
        message.delete_url = delete_link(request, message, floor=True)  # type: ignore[attr-defined]
        message.mute_url = mute_link(request, message, floor=True)  # type: ignore[attr-defined]
    return {"chat": chat, "show_chat": True, "chat_url": _optional_url("admin:tables_chatmessage_changelist")}


# ── reports ─────────────────────────────────────────────────────────────────


_OUT_OF_RANGE = f"Choose a day from {reports.FIRST_DAY:%Y-%m-%d} to {reports.LAST_DAY:%Y-%m-%d}."


def _report_day(label: str) -> forms.DateField:
    """A UTC day within the days a report can cover (a "To" of 9999-12-31 has no next midnight)."""
    return forms.DateField(
        required=False,
        label=label,
        widget=forms.DateInput(attrs={"type": "date"}),
        validators=[
            MinValueValidator(reports.FIRST_DAY, message=_OUT_OF_RANGE),
            MaxValueValidator(reports.LAST_DAY, message=_OUT_OF_RANGE),
        ],
    )


class DateRangeForm(forms.Form):
    """Both ends included; either may be left out ("To": today, "From": a week before "To")."""

    date_from = _report_day("From (UTC)")
    date_to = _report_day("To (UTC)")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns (its stub says "or None")
        if self.errors:
            return data
        today = reports.utc_today()
        date_to = data.get("date_to") or today
        date_from = data.get("date_from") or max(reports.FIRST_DAY, date_to - timedelta(days=DEFAULT_RANGE_DAYS - 1))
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
) -> HttpResponseBase:
    """Shared shape of a report: invalid filters → the page with the form's errors (200; 400 when the CSV was
    asked for, so a script fetching it sees the refusal), never a server error."""
    rows: list[Any] = []
    context: dict[str, Any] = {}
    status = 200
    if not form.is_valid() and request.GET.get("format") == "csv":
        status = 400
    if form.is_valid():
        data = form.cleaned_data
        rows = select(data)
        if request.GET.get("format") == "csv":
            return csv_response(request, rows, columns, f"{filename}-{data['date_from']}-{data['date_to']}.csv")
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
        status=status,
        **context,
    )


def _table_totals(rows: list[reports.TableDay]) -> dict[str, Any]:
    if not rows:
        return {}
    totals = reports.table_report_totals(rows)
    cells = [("Total", False), ("", False)]
    cells += [(_html_value(getattr(totals, c.attr), c.kind), True) for c in TABLE_COLUMNS[2:]]
    return {"totals": cells}


@replica_tolerant  # today's row may lack the last seconds' rounds (docs/replica.md); the live floor stays primary
def tables_report_view(request: HttpRequest) -> HttpResponseBase:
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


@replica_tolerant  # as the tables report
def players_report_view(request: HttpRequest) -> HttpResponseBase:
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
