"""The project stands on its own: every document the code cites is in docs/, and nothing cites a path outside
the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", "var", ".git", "staticfiles", "node_modules", "artifacts", ".ruff_cache", ".hypothesis"}
SOURCES = {".py", ".js", ".html", ".css", ".md", ".txt", ".toml", ".cfg", ".sh"}


def sources() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file() and path.suffix in SOURCES and not SKIP & set(path.relative_to(ROOT).parts)
    ]


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
    outside = re.compile(r"\.\./shared|/work/shared|\bRULES\.md|\bAPI\.md")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources()
        if path.name != "test_docs_references.py"
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if outside.search(line)
    ]
    assert not offenders, offenders
