"""The player's bet record: /bets/ (rounds with the player's bets, filters, totals), a round's detail
(/bets/rounds/<id>/) and the filtered record as CSV (/bets/export.csv). Reads: tables.selectors.record."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from baccarat_site import csvexport
from baccarat_site.clock import iso
from baccarat_site.db_router import replica_tolerant
from baccarat_site.money import display
from tables.labels import BET_NAMES, MODE_NAMES, RESULT_NAMES, WINNER_NAMES, label
from tables.selectors import record as selectors

if TYPE_CHECKING:
    from django.contrib.auth.models import User

#: Dates the filter accepts (a "to" day must leave room for the day after it).
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(9998, 12, 31)


DAY = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class RecordFilterForm(forms.Form):
    """The record's GET filters. Days are UTC days, both ends included."""

    start = forms.DateField(label=_("From"), required=False, input_formats=["%Y-%m-%d"], widget=DAY)
    end = forms.DateField(label=_("To"), required=False, input_formats=["%Y-%m-%d"], widget=DAY)
    table = forms.TypedChoiceField(label=_("Table"), required=False, coerce=int, empty_value=None)
    type = forms.ChoiceField(label=_("Bet"), required=False)
    result = forms.ChoiceField(label=_("Result"), required=False)
    page = forms.IntegerField(required=False, min_value=1, max_value=10**6)

    def __init__(self, data: Any, *, tables: Iterable[tuple[int, str]]) -> None:
        super().__init__(data)
        every = [("", _("All"))]
        cast(forms.ChoiceField, self.fields["table"]).choices = every + [(str(pk), name) for pk, name in tables]
        cast(forms.ChoiceField, self.fields["type"]).choices = every + list(BET_NAMES.items())
        cast(forms.ChoiceField, self.fields["result"]).choices = every + list(RESULT_NAMES.items())

    def _clean_day(self, name: str) -> date | None:
        day = self.cleaned_data.get(name)
        if day is not None and not FIRST_DAY <= day <= LAST_DAY:
            raise forms.ValidationError(gettext("Choose a day between 2000 and 9998."), code="out_of_range")
        return day

    def clean_start(self) -> date | None:
        return self._clean_day("start")

    def clean_end(self) -> date | None:
        return self._clean_day("end")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns (its stub says "or None")
        start, end = data.get("start"), data.get("end")
        if start and end and start > end:
            self.add_error("end", gettext("The “to” day cannot be before the “from” day."))
        return data

    def filters(self) -> selectors.RecordFilters:
        data = self.cleaned_data
        return selectors.RecordFilters(
            day_from=data.get("start"),
            day_to=data.get("end"),
            table_id=data.get("table"),
            bet_type=data.get("type") or None,
            result=data.get("result") or None,
        )


# ── what the templates show ─────────────────────────────────────────────────


def signed(amount: Decimal | None) -> dict[str, str]:
    """A net amount as shown: "+50.00", "−10.00" (a real minus), "0.00"; with a class for its colour."""
    if amount is None:
        return {"text": gettext("Pending"), "tone": "pending"}
    if amount > 0:
        return {"text": "+" + display(amount), "tone": "win"}
    if amount < 0:
        return {"text": "\u2212" + display(-amount), "tone": "loss"}
    return {"text": display(amount), "tone": "even"}


def _bet_row(bet: Any) -> dict[str, Any]:
    return {
        "id": bet.pk,
        "type": bet.type,
        "name": label(BET_NAMES, bet.type),
        "mode": bet.mode,
        "mode_name": label(MODE_NAMES, bet.mode),
        "stake": display(bet.amount),
        "status": bet.status,
        "result": label(RESULT_NAMES, bet.status),
        "payout": "" if bet.payout is None else display(bet.payout),
        "net": signed(selectors.net_of(bet)),
        "placed_at": bet.placed_at,
    }


#: A round's flags as the detail page lists them (only those that are true), named like the bets they pay.
FLAG_NAMES = (
    ("player_natural", BET_NAMES["player_natural"]),
    ("banker_natural", BET_NAMES["banker_natural"]),
    ("player_pair", BET_NAMES["player_pair"]),
    ("banker_pair", BET_NAMES["banker_pair"]),
    ("perfect_pair", BET_NAMES["perfect_pair"]),
    ("lucky_six", BET_NAMES["lucky_six"]),
)


def _round_view(facts: selectors.RoundFacts) -> dict[str, Any]:
    flags = facts.flags or {}
    return {
        "id": facts.id,
        "number": facts.number,
        "state": facts.state,
        "table_id": facts.table_id,
        "table_name": facts.table_name,
        "shoe_number": facts.shoe_number,
        "time": facts.time,
        "player_cards": facts.player_cards,
        "banker_cards": facts.banker_cards,
        "player_total": facts.player_total,
        "banker_total": facts.banker_total,
        "dealt": bool(facts.player_cards),
        "winner": facts.winner,
        "winner_name": label(WINNER_NAMES, facts.winner),
        "cancelled": facts.state == "cancelled",
        "reason": facts.reason,
        "flags": [name for key, name in FLAG_NAMES if flags.get(key)],
        "margin": flags.get("margin"),
        "bets": [_bet_row(bet) for bet in facts.bets],
        "staked": display(facts.staked),
        "returned": display(facts.returned),
        "pending": display(facts.pending) if facts.is_open else "",
        "net": signed(facts.net),
        "live": facts.live,
        "dealer": facts.dealer,
        "scans": [
            {
                "position": scan.position,
                "hand": scan.hand,
                "hand_name": label(WINNER_NAMES, scan.hand),
                "face": scan.face,
                "scanned_at": scan.scanned_at,
            }
            for scan in facts.scans
        ],
    }


def _form(request: HttpRequest) -> RecordFilterForm:
    return RecordFilterForm(request.GET, tables=selectors.record_tables())


def _query(form: RecordFilterForm) -> str:
    """The valid filters as a query string (no page), for page and CSV links."""
    keep = {name: form.data.get(name) for name in ("start", "end", "table", "type", "result")}
    return urlencode({name: value for name, value in keep.items() if value})


@login_required
@replica_tolerant  # the last settled rounds may show as pending for up to REPLICA_MAX_LAG_SECONDS (docs/replica.md)
def bet_record(request: HttpRequest) -> HttpResponse:
    form = _form(request)
    context: dict[str, Any] = {"form": form, "filtered": any(form.data.get(n) for n in form.fields if n != "page")}
    if not form.is_valid():
        # 200 with the form's errors (no rows): a page the player can correct, not a failed load.
        return render(request, "tables/bet_record.html", context)
    filters = form.filters()
    page = selectors.record_page(
        user=cast("User", request.user), filters=filters, page=form.cleaned_data.get("page") or 1
    )
    query = _query(form)
    totals = selectors.record_totals(user=cast("User", request.user), filters=filters)
    context.update(
        {
            "page": page,
            "rounds": [_round_view(facts) for facts in page.rounds],
            "totals": {
                "bets": totals.bets,
                "rounds": totals.rounds,
                "staked": display(totals.staked),
                "returned": display(totals.returned),
                "pending": display(totals.pending) if totals.pending else "",
                "net": signed(totals.net),
            },
            "query": query,
            "page_links": _page_links(page, query),
        }
    )
    return render(request, "tables/bet_record.html", context)


def _page_links(page: selectors.RecordPage, query: str) -> list[dict[str, Any]]:
    """Links to the first, last, current and nearby pages (None marks a gap)."""
    wanted = {1, page.num_pages, *range(page.number - 2, page.number + 3)}
    numbers = sorted(n for n in wanted if 1 <= n <= page.num_pages)
    links: list[dict[str, Any]] = []
    for index, number in enumerate(numbers):
        if index and number - numbers[index - 1] > 1:
            links.append({"gap": True})
        href = f"?{query}&page={number}" if query else f"?page={number}"
        links.append({"number": number, "href": href, "current": number == page.number})
    return links


@login_required
def bet_round(request: HttpRequest, round_id: int) -> HttpResponse:
    found = selectors.record_round(user=request.user, round_id=round_id)
    if found is None:
        return render(request, "tables/round_detail.html", {"missing": True}, status=404)
    facts, shoe = found
    return render(request, "tables/round_detail.html", {"round": _round_view(facts), "shoe": shoe})


# ── CSV ─────────────────────────────────────────────────────────────────────

CSV_HEADER = ("time_utc", "table", "shoe", "round", "bet", "bet_name", "mode", "stake", "result", "payout", "net")


def _csv_rows(bets: Iterator[Any]) -> Iterator[list[object]]:
    for bet in bets:
        yield [
            iso(bet.placed_at),
            bet.round.table.name,
            bet.round.shoe.number,
            bet.round.number,
            bet.type,
            label(BET_NAMES, bet.type),
            bet.mode,
            bet.amount,
            bet.status,
            bet.payout,
            selectors.net_of(bet),
        ]


@login_required
@replica_tolerant  # as the record page: its rows are read as the file is sent, from the same place
def bet_export(request: HttpRequest) -> HttpResponseBase:
    form = _form(request)
    if not form.is_valid():
        context = {"form": form, "filtered": True}
        return render(request, "tables/bet_record.html", context, status=400)
    bets = selectors.record_csv_bets(user=cast("User", request.user), filters=form.filters())
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    return csvexport.response(request, filename=f"bet-record-{stamp}.csv", header=CSV_HEADER, rows=_csv_rows(bets))
