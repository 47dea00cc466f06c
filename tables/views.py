"""Player pages: thin views that read rows and render templates; the live game is in static/casino/."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext_lazy as _

from tables.models import Table

BET_LABELS = {
    "player": (_("Player"), "1:1"),
    "banker": (_("Banker"), "0.95:1"),
    "tie": (_("Tie"), "8:1"),
    "player_pair": (_("Player Pair"), "11:1"),
    "banker_pair": (_("Banker Pair"), "11:1"),
    "any_pair": (_("Any Pair"), "5:1"),
    "perfect_pair": (_("Perfect Pair"), "25:1"),
    "player_natural": (_("Player Natural"), "7:2"),
    "banker_natural": (_("Banker Natural"), "7:2"),
    "player_bonus": (_("Player Bonus"), "up to 30:1"),
    "banker_bonus": (_("Banker Bonus"), "up to 30:1"),
    "lucky_six": (_("Lucky Six"), "12:1 / 20:1"),
    "lucky_six_2": (_("2-Card Lucky Six"), "22:1"),
    "lucky_six_3": (_("3-Card Lucky Six"), "50:1"),
}
CHIPS = ("1", "5", "25", "100", "500")


def bet_spots(table: Table) -> list[dict[str, Any]]:
    limits = table.variant.limits
    spots = []
    for bet_type, (label, pays) in BET_LABELS.items():
        limit = limits.get(bet_type)
        if bet_type == "tie":
            pays = f"{table.variant.paytable.get('tie', 8)}:1"
        spots.append(
            {
                "type": bet_type,
                "label": label,
                "pays": pays,
                "offered": limit is not None,
                "min": limit["min"] if limit else "",
                "max": limit["max"] if limit else "",
            }
        )
    return spots


def lobby(request: HttpRequest) -> HttpResponse:
    tables = Table.objects.select_related("variant").order_by("id")
    return render(request, "tables/lobby.html", {"tables": tables})


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("variant"), pk=table_id)
    context = {
        "table": table,
        "bet_types": bet_spots(table),
        "chips": CHIPS,
        "pb_limit": table.variant.pb_difference_limit,
    }
    return render(request, "tables/table.html", context)


@login_required
def bet_record(request: HttpRequest) -> HttpResponse:
    tables = Table.objects.order_by("id").only("id", "name")
    labels = [{"type": t, "label": label} for t, (label, _pays) in BET_LABELS.items()]
    return render(request, "tables/bet_record.html", {"tables": tables, "bet_types": labels})
