"""Scoreboard roads of a shoe: Bead Plate, Big Road, Big Eye Boy, Small Road, Cockroach Pig, and the ask road.

Conventions (those of live-casino scoreboards):

* Grids have 6 rows; ``col``/``row`` are 0-based, row 0 at the top.
* Bead Plate: every round, ties included, filled down each column then left to right.
* Big Road: Banker/Player wins only. A win for the side of the current streak goes one cell down; the other
  side starts a new column to the right of where the streak started. When the next cell down is past the
  sixth row or already taken, the streak turns right along its row (the "dragon tail"). A tie is marked on
  the last cell as a count (``ties``); ties before the first win are counted on the first cell and reported
  as ``leading_ties``. Pair dots: ``banker_pair``/``player_pair`` of that cell's round.
* Derived roads read the Big Road's *logical* columns (streaks, whatever their length) with an offset
  k = 1 (Big Eye Boy), 2 (Small Road), 3 (Cockroach Pig). For a Big Road entry in column c, row r:
  - r = 0: red if columns c−1 and c−1−k have the same length, else blue;
  - r ≥ 1: look at column c−k: red if it has a cell in row r, blue if it ends exactly at row r−1,
    red if it is shorter still.
  A road starts with the entry in column k row 1, or column k+1 row 0, whichever comes first. Red means
  repetitive/orderly, blue chaotic. Marks are placed like the Big Road: same colour down, new colour a new
  column, dragon tails included.
* Ask road: the mark each derived road would add if the next result were Banker, or Player (None: none yet).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .tableau import RoundResult

ROWS = 6
DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))


def _entry(item: RoundResult | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(item, RoundResult):
        return {
            "winner": item.winner,
            "player_total": item.player_total,
            "banker_total": item.banker_total,
            "player_pair": item.player_pair,
            "banker_pair": item.banker_pair,
            "natural": item.player_natural or item.banker_natural,
        }
    winner = item["winner"]
    if winner not in ("player", "banker", "tie"):
        raise ValueError(f"not a round winner: {winner!r}")
    return {
        "winner": winner,
        "player_total": item.get("player_total"),
        "banker_total": item.get("banker_total"),
        "player_pair": bool(item.get("player_pair", False)),
        "banker_pair": bool(item.get("banker_pair", False)),
        "natural": bool(item.get("player_natural", False) or item.get("banker_natural", False)),
    }


def place(keys: Sequence[str]) -> list[tuple[int, int]]:
    """Grid positions (col, row) for a sequence of marks, Big Road style (streaks down, dragon tails right)."""
    taken: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    start_col = -1
    previous: str | None = None
    col = row = 0
    turned = False
    for key in keys:
        if key != previous:
            col = start_col + 1
            while (col, 0) in taken:
                col += 1
            start_col, row, turned = col, 0, False
        elif not turned and row + 1 < ROWS and (col, row + 1) not in taken:
            row += 1
        else:
            turned = True
            col += 1
            while (col, row) in taken:
                col += 1
        taken.add((col, row))
        out.append((col, row))
        previous = key
    return out


def derived_mark(lengths: Sequence[int], col: int, row: int, offset: int) -> str | None:
    """The colour a derived road with ``offset`` adds for the Big Road entry at logical (col, row).

    ``lengths`` are the lengths of the Big Road's logical columns before ``col`` (at least).
    """
    if row == 0:
        if col < offset + 1:
            return None
        return "red" if lengths[col - 1] == lengths[col - 1 - offset] else "blue"
    if col < offset:
        return None
    compared = lengths[col - offset]
    if compared >= row + 1:
        return "red"
    return "blue" if compared == row else "red"


def _logical(winners: Sequence[str]) -> list[tuple[int, int]]:
    """Logical (column, row) of each Big Road entry."""
    out: list[tuple[int, int]] = []
    col, row = -1, 0
    previous: str | None = None
    for w in winners:
        if w == previous:
            row += 1
        else:
            col, row = col + 1, 0
        out.append((col, row))
        previous = w
    return out


def _derived_colours(winners: Sequence[str], offset: int) -> list[str]:
    lengths: list[int] = []
    colours: list[str] = []
    for col, row in _logical(winners):
        if row == 0:
            lengths.append(0)
        lengths[col] += 1
        mark = derived_mark(lengths, col, row, offset)
        if mark is not None:
            colours.append(mark)
    return colours


def _next_mark(winners: Sequence[str], side: str, offset: int) -> str | None:
    """The mark a derived road would add if the next (non-tie) result were ``side``."""
    before = len(_derived_colours(winners, offset))
    after = _derived_colours([*winners, side], offset)
    return after[-1] if len(after) > before else None


def roads(results: Sequence[RoundResult | Mapping[str, Any]]) -> dict[str, Any]:
    """Every road of one shoe from its rounds in order (RoundResults, or their ``flags()`` dicts). JSON-able."""
    entries = [_entry(r) for r in results]

    bead_plate = [{"index": i, "col": i // ROWS, "row": i % ROWS, **e} for i, e in enumerate(entries)]

    big: list[dict[str, Any]] = []
    leading_ties = 0
    for e in entries:
        if e["winner"] == "tie":
            if big:
                big[-1]["ties"] += 1
            else:
                leading_ties += 1
            continue
        big.append(
            {
                "winner": e["winner"],
                "ties": leading_ties if not big else 0,
                "player_pair": e["player_pair"],
                "banker_pair": e["banker_pair"],
                "natural": e["natural"],
            }
        )
    winners = [cell["winner"] for cell in big]
    for cell, (col, row), (streak, depth) in zip(big, place(winners), _logical(winners), strict=True):
        cell.update(col=col, row=row, streak=streak, streak_index=depth)

    out: dict[str, Any] = {"bead_plate": bead_plate, "big_road": big, "leading_ties": leading_ties}
    for name, offset in DERIVED:
        colours = _derived_colours(winners, offset)
        out[name] = [
            {"col": c, "row": r, "color": color} for color, (c, r) in zip(colours, place(colours), strict=True)
        ]
    out["ask"] = {
        side: {name: _next_mark(winners, side, offset) for name, offset in DERIVED} for side in ("banker", "player")
    }
    return out
