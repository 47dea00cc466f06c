"""The lobby: every table as a live tile (name, limits, status, round and countdown, roads, shoe statistics,
players). The first render comes from the same selector as the ``ws/lobby/`` stream, which keeps it live."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from baccarat_site.clock import server_time
from baccarat_site.db_router import replica_tolerant
from tables.labels import ROUND_STATE_NAMES, TABLE_STATUS_NAMES, WINNER_NAMES, label
from tables.selectors.lobby import lobby_tiles


@replica_tolerant  # the ws/lobby/ stream's snapshot on connect replaces a stale first render (docs/replica.md)
def lobby(request: HttpRequest) -> HttpResponse:
    tiles = lobby_tiles()
    for tile in tiles:  # translated names for the first render; the script uses the same ones from the config
        round_ = tile["round"] or {}
        tile["status_label"] = label(TABLE_STATUS_NAMES, tile["status"])
        tile["state_label"] = label(ROUND_STATE_NAMES, round_.get("state"))
        tile["winner_label"] = label(WINNER_NAMES, round_.get("winner"))
    config = {
        "status_names": {code: str(name) for code, name in TABLE_STATUS_NAMES.items()},
        "state_names": {code: str(name) for code, name in ROUND_STATE_NAMES.items()},
        "winner_names": {code: str(name) for code, name in WINNER_NAMES.items()},
        "snapshot": {"type": "snapshot", "tables": tiles, "server_time": server_time()},
    }
    return render(request, "tables/lobby.html", {"tiles": tiles, "config": config})
