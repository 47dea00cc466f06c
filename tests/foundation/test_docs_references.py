"""The project stands on its own: every document the code cites is in docs/, and nothing cites a path outside
the repository."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", "var", ".git", "staticfiles", "node_modules", "artifacts", ".ruff_cache", ".hypothesis"}
SOURCES = {".py", ".js", ".html", ".css", ".md", ".txt", ".toml", ".cfg", ".sh"}


@cache
def sources() -> tuple[Path, ...]:
    """Every source file of the checkout; the skipped folders (.venv above all) are not even walked."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIP]
        found += [Path(folder) / name for name in files if Path(name).suffix in SOURCES]
    return tuple(found)


def test_every_cited_document_exists():
    cited = {
        name
        for path in sources()
        for name in re.findall(r"\bdocs/([a-z0-9_-]+\.md)\b", path.read_text(encoding="utf-8", errors="replace"))
    }
    assert {"api.md", "rules.md"} <= cited
    missing = sorted(name for name in cited if not (ROOT / "docs" / name).is_file())
    assert not missing, missing


def test_nothing_cites_a_path_outside_the_repository():
    """No relative path climbs out of the repository, and no one cites the spec files by their old upper-case
    names (the project's own are docs/rules.md and docs/api.md)."""
    relative = re.compile(r"(?:\.\./)+[\w.-]+(?:/[\w.-]+)*")
    old_names = re.compile(r"\b(?:RULES|API)\.md\b")
    offenders = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            climbs_out = any(ROOT not in (path.parent / match).resolve().parents for match in relative.findall(line))
            if climbs_out or old_names.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert not offenders, offenders
