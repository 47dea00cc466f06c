"""The live table page: its first render (spots, chips, limits); the game itself runs in static/casino/table/."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from baccarat_site.money import display
from tables.engine import Limits, Paytable, chip_denominations, payout_labels
from tables.engine.limits import PB_SIDES
from tables.labels import BET_NAMES
from tables.models import Table
from tables.selectors.tables import personal_limits, table_decks, table_terms_now


def table_board(table: Table) -> dict[str, Any]:
    """What the table page needs before its first frame: the bet spots with their payouts and limits, the chips,
    by the current round's own terms (``table_terms_now``), the same the snapshot then draws."""
    terms = table_terms_now(table)
    limits = Limits.from_dict(terms["limits"])
    paytable = Paytable.from_dict(terms["paytable"])
    pays = payout_labels(paytable)
    spots = []
    for bet_type, name in BET_NAMES.items():
        low_high = limits.per_type.get(bet_type)
        if low_high and bet_type in PB_SIDES and limits.pb_difference is not None:
            # The difference limit is Player's and Banker's binding maximum: alone on one side, that is the most.
            low_high = (low_high[0], limits.pb_difference)
        spots.append(
            {
                "type": bet_type,
                "name": str(name),
                "pays": pays[bet_type],
                "offered": low_high is not None,
                "min": str(low_high[0]) if low_high else None,
                "max": str(low_high[1]) if low_high else None,
                "min_label": display(low_high[0]) if low_high else "",
                "max_label": display(low_high[1]) if low_high else "",
                "last_round": limits.unavailable_after.get(bet_type),
            }
        )
    return {
        "table_id": table.pk,
        "spots": spots,
        "chips": chip_denominations(limits.per_type),
        "pb_difference_limit": None if limits.pb_difference is None else str(limits.pb_difference),
    }


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(
        Table.objects.select_related("variant")
        .prefetch_related("variant__bets", "limits")
        .exclude(status=Table.Status.RETIRED),
        pk=table_id,
    )
    board = table_board(table)
    board["signed_in"] = request.user.is_authenticated
    board["bet_names"] = {t: str(n) for t, n in BET_NAMES.items()}
    # The player's personal maximum (docs/rules.md "Personal limits"); the snapshot keeps it current.
    board["personal_limits"] = personal_limits(request.user)
    personal_max = board["personal_limits"] and board["personal_limits"]["max_stake"]
    context = {
        "table": table,
        "board": board,
        "spots": {spot["type"]: spot for spot in board["spots"]},
        "pb_limit": display(board["pb_difference_limit"] or 0),
        "decks": table_decks(table),  # the current shoe's, not the variant's next one
        "personal_max": display(personal_max) if personal_max else "",
        # The chat panel (templates/tables/_chat.html): its length cap and how long messages stay shown.
        "chat_max_chars": settings.CHAT_MAX_CHARS,
        "chat_history_minutes": settings.CHAT_HISTORY_MINUTES,
    }
    return render(request, "tables/table.html", context)
