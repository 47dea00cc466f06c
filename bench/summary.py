"""Print every benchmark's measures as one table (measure, result, baseline from the same run, ratio, goal)
and write it to bench/RESULTS.md with the date and the machine's core count: ``make bench`` ends with it."""

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
    return f"{value:,.3g} {unit}" if abs(value) < 1 else f"{value:,.1f} {unit}"


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BENCH_RESULTS", ""))
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    header = ("measure", "result", "baseline (same run)", "ratio", "goal", "")
    table = [header]
    for row in rows:
        ratio = ""
        if row["baseline"] not in (None, 0) and row["unit"] != "count":
            ratio = f"{row['result'] / row['baseline']:.2f}×"
        mark = "" if row["met"] is None else ("met" if row["met"] else "MISSED")
        table.append(
            (
                row["measure"],
                fmt(row["result"], row["unit"]),
                fmt(row["baseline"], row["unit"]),
                ratio,
                row["goal"],
                mark,
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)) + " |" for r in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    title = f"Benchmarks, {stamp}, {os.cpu_count()} cores (`make bench`; baselines measured in the same run)"
    print(title)
    print("\n".join(lines))
    (ROOT / "bench" / "RESULTS.md").write_text(
        f"# {title}\n\n" + "\n".join(lines) + "\n\nEach script prints more detail; see the README's figures.\n"
    )
    missed = [row["measure"] for row in rows if row["met"] is False]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
