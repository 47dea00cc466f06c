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


def heading_anchors(path: Path) -> set[str]:
    """The anchors a Markdown file's headings get (GitHub's rule: lower case, punctuation dropped, spaces as hyphens),
    leaving out lines inside fenced code."""
    anchors, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = re.match(r"#+ (.*)", line)
        if heading and not fenced:
            anchors.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return anchors


def test_every_relative_link_in_the_documents_resolves():
    """The README is a front page that sends the reader to docs/: every relative link or image in a Markdown file
    names a file of the checkout, and every #anchor a heading of the file it points into."""
    broken = []
    for path in sources():
        if path.suffix != ".md":
            continue
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            destination = (path.parent / file).resolve() if file else path
            if not destination.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in heading_anchors(destination):
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, broken


def test_the_readme_is_a_front_page():
    """What it is, the two commands, the demo logins, where a change goes and the rules of the house are on the
    first screen; everything else is linked."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first_screen = "\n".join(lines[:60])
    for must in ("make run", "make test", "## Demo logins", "## Where a change goes", "## Rules of the house"):
        assert must in first_screen, must
    assert len(lines) <= 200, len(lines)
