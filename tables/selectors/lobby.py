"""The lobby's tiles: every table a player may join, as the lobby shows it (docs/lobby.md).

Read-only. One tile per table: its name, variant, decks, limits range, status, the current round, a short
bead plate and big road of the current shoe, the shoe's Banker/Player/Tie counts and the players at the table
now. Built in a few queries for all tables at once, so the lobby page, the stream's snapshot and its updates
all read the same shape.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.utils import timezone

from baccarat_site import money
from baccarat_site.clock import iso
from baccarat_site.money import display
from tables.engine import roads
from tables.models import Round, Shoe
from tables.presence import player_counts
from tables.selectors.tables import RESULT_STATES, joinable_tables, public_status

#: The tile's roads keep the newest columns only: enough for a small board, and a snapshot of many tables stays small.
BEAD_COLUMNS = 6
BIG_ROAD_COLUMNS = 12


def _trim(
    cells: list[dict[str, Any]], columns: int, keep: tuple[str, ...], flags: tuple[str, ...]
) -> list[dict[str, Any]]:
    """The cells of the last ``columns`` columns, moved to start at column 0, with only the fields drawn:
    ``keep`` always, ``flags`` only when set (the drawing reads a missing flag as false)."""
    if not cells:
        return []
    first = max(0, max(cell["col"] for cell in cells) - columns + 1)
    out = []
    for cell in cells:
        if cell["col"] < first:
            continue
        small = {"col": cell["col"] - first, "row": cell["row"], **{key: cell.get(key) for key in keep}}
        small.update({key: cell[key] for key in flags if cell.get(key)})
        out.append(small)
    return out


def tile_roads(road_data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The bead plate and the big road of a shoe's roads (``tables.engine.roads``), cut to the tile's size."""
    pairs = ("player_pair", "banker_pair")
    return {
        "bead_plate": _trim(
            road_data.get("bead_plate", []), BEAD_COLUMNS, ("index", "winner", "player_total", "banker_total"), pairs
        ),
        "big_road": _trim(road_data.get("big_road", []), BIG_ROAD_COLUMNS, ("winner",), ("ties", *pairs)),
    }


def shoe_stats(flags: list[dict[str, Any]]) -> dict[str, Any]:
    """Rounds, Banker/Player/Tie wins and their percentages (one decimal, as strings) in a shoe."""
    counts = {"banker": 0, "player": 0, "tie": 0}
    for entry in flags:
        if entry.get("winner") in counts:
            counts[entry["winner"]] += 1
    rounds = sum(counts.values())

    def pct(n: int) -> str:
        return str((Decimal(100 * n) / rounds).quantize(Decimal("0.1"))) if rounds else "0.0"

    return {"rounds": rounds, **counts, **{f"{side}_pct": pct(n) for side, n in counts.items()}}


def _round_tile(round_: Round | None) -> dict[str, Any] | None:
    if round_ is None:
        return None
    return {
        "id": round_.pk,
        "number": round_.number,
        "state": round_.state,
        "opens_at": iso(round_.opens_at),
        "closes_at": iso(round_.closes_at),
        "result_at": iso(round_.result_at),
        "winner": round_.winner or None,
        "player_total": round_.player_total,
        "banker_total": round_.banker_total,
    }


def lobby_tiles(table_ids: list[int] | None = None) -> list[dict[str, Any]]:
    """A tile for every table a player may join (or for those of ``table_ids`` among them), in table order:
    open and paused tables, and closed ones their opening hours will reopen; never one closed by an operator or
    retired, and never an operator's own reason."""
    query = joinable_tables().select_related("variant").prefetch_related("variant__bets", "limits").order_by("id")
    if table_ids is not None:
        query = query.filter(pk__in=table_ids)
    tables = list(query)
    if not tables:
        return []
    ids = [table.pk for table in tables]
    now = timezone.now()
    latest = {
        r.table_id: r
        for r in Round.objects.filter(table_id__in=ids)
        .select_related("shoe")
        .order_by("table_id", "-id")
        .distinct("table_id")
    }
    shoes = {s.table_id: s for s in Shoe.objects.filter(table_id__in=ids, finished_at__isnull=True)}
    for table_id, round_ in latest.items():
        shoes.setdefault(table_id, round_.shoe)  # between shoes: the last round's shoe until the next is shuffled
    flags: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for shoe_id, entry in (
        Round.objects.filter(shoe_id__in=[s.pk for s in shoes.values()], state__in=RESULT_STATES)
        .order_by("shoe_id", "number")
        .values_list("shoe_id", "flags")
    ):
        if entry:
            flags[shoe_id].append(entry)
    players = player_counts(ids)
    tiles = []
    for table in tables:
        shoe = shoes.get(table.pk)
        shoe_flags = flags.get(shoe.pk, []) if shoe is not None else []
        per_type = table.limits_dict()["per_type"].values()  # the variant's, narrowed by the table's own
        low = min((Decimal(v["min"]) for v in per_type), default=None)
        high = max((Decimal(v["max"]) for v in per_type), default=None)
        tiles.append(
            {
                "id": table.pk,
                "name": table.name,
                "variant": table.variant.name,
                # The current shoe's deck count: a variant switched mid-shoe applies from the next shoe.
                "decks": (shoe.decks if shoe is not None else None) or table.variant.decks,
                "status": table.status,
                **public_status(table, now),  # status_notice, status_reason (public), hours
                "limits": {
                    "min": money.text_or_none(low),
                    "max": money.text_or_none(high),
                    "min_label": display(low) if low is not None else None,
                    "max_label": display(high) if high is not None else None,
                },
                "betting_seconds": table.betting_seconds,
                "shoe_number": shoe.number if shoe is not None else None,
                "round": _round_tile(latest.get(table.pk)),
                "roads": tile_roads(roads(shoe_flags)),
                "stats": shoe_stats(shoe_flags),
                "players": players.get(table.pk, 0),
            }
        )
    return tiles
