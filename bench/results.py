"""One table for every benchmark: each script records its measures here (when ``BENCH_RESULTS`` names a file),
and ``bench/summary.py`` prints them side by side and writes ``bench/RESULTS.md``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def record(
    measure: str, result: float, unit: str, *, baseline: float | None = None, goal: str = "", met: bool | None = None
) -> None:
    """Add one line: the benchmark (the script's name), the measure, its result and the baseline measured in the
    same run (same unit)."""
    path = os.environ.get("BENCH_RESULTS")
    if not path:
        return
    line = {
        "bench": Path(sys.argv[0]).stem,
        "measure": measure,
        "result": result,
        "unit": unit,
        "baseline": baseline,
        "goal": goal,
        "met": met,
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
