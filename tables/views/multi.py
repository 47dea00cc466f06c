"""Multi-table: two to four live tables side by side, each a compact TableClient (static/casino/multi/)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from baccarat_site.numbers import whole_number
from tables.labels import BET_NAMES
from tables.models import Table
from tables.views.table import table_board

MAX_TABLES = 4
COMPACT_SPOTS = ("player_pair", "player", "tie", "banker", "banker_pair")


def choose_tables(raw: list[str], tables: list[Table]) -> tuple[list[Table], list[str]]:
    """The tables asked for in ``?t=`` (in that order, each once, open or paused ones only, at most four) and
    what to tell the player about the rest. Nothing asked (or nothing usable): the first open tables."""
    by_id = {table.pk: table for table in tables}
    chosen: list[Table] = []
    problems: list[str] = []
    for value in raw:
        value = value.strip()
        number = whole_number(value, max_digits=9)  # ASCII digits only: "²", "①" or 5,000 digits are no number
        if number is None:
            problems.append(_("“%(value)s” is not a table number.") % {"value": value[:20]})
            continue
        table = by_id.get(number)
        if table is None:
            problems.append(_("There is no table %(id)s.") % {"id": number})
        elif table.status == Table.Status.CLOSED:
            problems.append(_("%(table)s is closed.") % {"table": table.name})
        elif table not in chosen:
            chosen.append(table)
    if len(chosen) > MAX_TABLES:
        problems.append(_("At most four tables at once: showing the first four you chose."))
        chosen = chosen[:MAX_TABLES]
    if not chosen:
        chosen = [t for t in tables if t.status == Table.Status.OPEN][:MAX_TABLES]
        if raw and chosen:
            problems.append(_("Showing the first open tables instead."))
    return chosen, problems


def multi(request: HttpRequest) -> HttpResponse:
    tables = list(
        Table.objects.exclude(status=Table.Status.RETIRED)  # retired: gone for players
        .select_related("variant")
        .prefetch_related("variant__bets", "limits")
        .order_by("id")
    )
    chosen, problems = choose_tables(request.GET.getlist("t"), tables)
    signed_in = request.user.is_authenticated
    names = {t: str(n) for t, n in BET_NAMES.items()}
    seats: list[dict[str, Any]] = []
    for table in chosen:
        board = table_board(table)
        board["signed_in"] = signed_in
        board["bet_names"] = names
        spots = {spot["type"]: spot for spot in board["spots"]}
        seats.append(
            {
                "table": table,
                "board": board,
                "spots": [spots[t] for t in COMPACT_SPOTS],
                "config_id": f"table-config-{table.pk}",
            }
        )
    rack = sorted({chip for seat in seats for chip in seat["board"]["chips"]})[:7]
    context = {
        "seats": seats,
        "chips": rack,
        "problems": problems,
        "choices": [t for t in tables if t.status != Table.Status.CLOSED],
        "chosen_ids": [t.pk for t in chosen],
        "max_tables": MAX_TABLES,
    }
    return render(request, "tables/multi.html", context)
