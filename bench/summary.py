"""Print every benchmark's measures (measure, result, baseline from the same run, ratio, goal) and write them to
bench/RESULTS.md, one section per benchmark with the command that runs it, under the date and the machine's core
count: ``make bench`` ends with it. The file holds the latest figures only; earlier ones are in git."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit in {"rounds/s", "confirms/s"} or abs(value) >= 1000:
        return f"{value:,.0f} {unit}"
    if unit == "count":
        return f"{value:.0f}"
    if unit == "tables":
        return f"{value:.0f} {unit}"
    return f"{value:,.3g} {unit}" if abs(value) < 1 else f"{value:,.1f} {unit}"


#: How each benchmark is run on its own, as ``make bench`` runs it.
COMMANDS = {
    "engine": ".venv/bin/python bench/engine.py",
    "bets": ".venv/bin/python bench/bets.py",
    "confirm": ".venv/bin/python bench/confirm.py",
    "fanout": ".venv/bin/python bench/fanout.py",
    "sockets_per_daphne": ".venv/bin/python bench/sockets_per_daphne.py",
    "chat": ".venv/bin/python bench/chat.py",
    "table_page": ".venv/bin/python bench/table_page.py",
    "reveal": ".venv/bin/python bench/reveal.py",
    "tables_per_worker": ".venv/bin/python bench/tables_per_worker.py",
    "chaos": "CHAOS_PLAYERS=20 CHAOS_ROUNDS=40 CHAOS_KILLS=10 .venv/bin/python bench/chaos.py",  # make chaos: full size
}
HEADER = ("measure", "result", "baseline (same run)", "ratio", "goal", "")


def table(rows: list[dict]) -> list[str]:
    """The rows as a Markdown table."""
    cells = [HEADER]
    for row in rows:
        ratio = ""
        if row["baseline"] not in (None, 0) and row["unit"] != "count":
            ratio = f"{row['result'] / row['baseline']:.2f}×"
        mark = "" if row["met"] is None else ("met" if row["met"] else "MISSED")
        result, baseline = fmt(row["result"], row["unit"]), fmt(row["baseline"], row["unit"])
        cells.append((row["measure"], result, baseline, ratio, row["goal"], mark))
    widths = [max(len(r[i]) for r in cells) for i in range(len(HEADER))]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BENCH_RESULTS", ""))
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    title = f"Benchmarks, {stamp}, {os.cpu_count()} cores (`make bench`; baselines measured in the same run)"
    print(title)
    print("\n".join(table(rows)))
    sections = []
    for bench in dict.fromkeys(row.get("bench", "") for row in rows):
        command = COMMANDS.get(bench, f".venv/bin/python bench/{bench}.py")
        sections.append(
            f"## {bench}\n\n`{command}`\n\n" + "\n".join(table([r for r in rows if r.get("bench", "") == bench]))
        )
    (ROOT / "bench" / "RESULTS.md").write_text(
        f"# {title}\n\n" + "\n\n".join(sections) + "\n\nEach script prints more detail; see docs/deployment.md.\n"
    )
    missed = [row["measure"] for row in rows if row["met"] is False]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
