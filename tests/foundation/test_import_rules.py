"""The layers, asserted: no import goes from a lower layer to a higher one, and money is defined once.

Read from the source with ``ast`` (every import statement, at any depth), so a new module is checked
the moment it exists. Lowest first:

1. ``baccarat_site``'s plain modules (money, db, clock, errors): no app.
2. ``tables.engine``: plain Python, no Django, nothing of the project but itself and ``baccarat_site.money``.
3. ``wallets``: nothing from ``tables`` or the accounts.
4. services and selectors: no edge (views, APIs, consumers, admin, tasks, URLs); selectors write nothing,
   so they import no service.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("baccarat_site", "tables", "wallets")
EDGES = ("views", "apis", "consumers", "admin", "admin_floor", "admin_records", "tasks", "urls", "routing")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(path: Path, module: str) -> set[str]:
    """Every module ``path`` imports, absolute (relative imports resolved against ``module``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                prefix = ".".join(base)
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


MODULES = modules()
IMPORTS = {name: imports_of(path, name) for name, path in MODULES.items()}


def under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def is_edge(name: str) -> bool:
    return any(part in EDGES for part in name.split(".")[1:]) or name.endswith(".management.commands")


def offences(importer: str, forbidden: object) -> list[str]:
    return sorted(target for target in IMPORTS[importer] if forbidden(target))  # type: ignore[operator]


def test_the_checker_sees_the_whole_project():
    assert len(MODULES) > 80
    assert "tables.services.settlement" in MODULES
    assert "wallets.services" in MODULES
    # and it resolves what it reads: the settlement's own imports are found
    assert "baccarat_site.money" in IMPORTS["tables.services.settlement"]
    assert "wallets.services" in IMPORTS["tables.services.settlement"]
    assert "tables.engine.bets.BET_TYPES" in IMPORTS["tables.engine"]  # a relative import, resolved


@pytest.mark.parametrize("module", sorted(m for m in MODULES if under(m, "tables.engine")))
def test_the_engine_imports_no_django_and_nothing_of_the_project_but_money(module):
    def forbidden(target: str) -> bool:
        if under(target, "django", "rest_framework", "channels", "celery"):
            return True
        return under(target, *PACKAGES) and not under(target, "tables.engine", "baccarat_site.money")

    assert offences(module, forbidden) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if under(m, "wallets")))
def test_wallets_import_nothing_from_tables_or_the_accounts(module):
    assert offences(module, lambda t: under(t, "tables", "baccarat_site.accounts")) == []


@pytest.mark.parametrize(
    "module", ["baccarat_site.money", "baccarat_site.db", "baccarat_site.clock", "baccarat_site.errors"]
)
def test_the_shared_plain_modules_import_no_app(module):
    assert offences(module, lambda t: under(t, "tables", "wallets", "baccarat_site.accounts")) == []


LOGIC = sorted(m for m in MODULES if any(part in ("services", "selectors") for part in m.split(".")))


@pytest.mark.parametrize("module", LOGIC)
def test_services_and_selectors_import_no_edge(module):
    assert offences(module, lambda t: under(t, *PACKAGES) and is_edge(t)) == []


@pytest.mark.parametrize("module", [m for m in LOGIC if "selectors" in m.split(".")])
def test_selectors_import_no_service(module):
    assert offences(module, lambda t: under(t, *PACKAGES) and "services" in t.split(".")) == []


def test_the_rules_catch_a_wrong_import(tmp_path):
    """The checker itself can fail: a selector that imports a view is an offence."""
    bad = tmp_path / "bad.py"
    bad.write_text("from tables.views import table\nfrom . import services\n")
    found = imports_of(bad, "tables.selectors.bad")
    assert any(is_edge(t) for t in found)
    assert "tables.selectors.services" in found or "tables.selectors" in found


MONEY_NAMES = {"CENT", "ZERO", "money", "to_amount", "cents", "cents_down", "format_money", "parse_amount"}


def test_money_is_defined_once_in_baccarat_site_money():
    """No second CENT, money(), parser or formatter: every amount goes through baccarat_site.money."""
    seen: dict[str, list[str]] = {}
    cent_literals = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            defined = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                defined = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined = [t.id for t in targets if isinstance(t, ast.Name)]
            for item in defined:
                if item in MONEY_NAMES:
                    seen.setdefault(item, []).append(name)
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Decimal"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in ("0.01", "0.00")
                and name != "baccarat_site.money"
            ):
                cent_literals.append(f"{name}:{node.lineno}")
    assert seen.get("CENT") == ["baccarat_site.money"]
    assert {item: where for item, where in seen.items() if where != ["baccarat_site.money"]} == {}
    assert cent_literals == []


#: An amount written by hand rather than by the one formatter: a grouped two-decimal format in Python
#: (f"{x:,.2f}", format(x, "+,.2f")), toFixed(2) / toLocaleString / Intl.NumberFormat in a script, floatformat
#: or intcomma in a template. A share or a statistic is written with other specs (".1f", ">12.2f").
HAND_MADE_MONEY = {
    ".py": re.compile(r"[:'\"][+\- ]?,\.2f"),
    ".js": re.compile(r"\.toFixed\(2\)|\.toLocaleString\(|Intl\.NumberFormat\("),
    ".html": re.compile(r"\|\s*(floatformat|intcomma)\b(?!:0)"),
}
#: The one formatter of each language, where writing it by hand is the point.
MONEY_FORMATTERS = {"baccarat_site/money.py", "static/casino/format.js"}


def hand_made_money() -> dict[str, list[str]]:
    """Every line that writes an amount by hand, by file (under the apps, templates/ and static/)."""
    found: dict[str, list[str]] = {}
    roots = [ROOT / package for package in PACKAGES] + [ROOT / "templates", ROOT / "static"]
    for root in roots:
        for path in sorted(root.rglob("*")):
            pattern = HAND_MADE_MONEY.get(path.suffix)
            relative = path.relative_to(ROOT).as_posix()
            if pattern is None or "migrations" in path.parts or "vendor" in path.parts or relative in MONEY_FORMATTERS:
                continue
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if pattern.search(line):
                    found.setdefault(relative, []).append(f"{number}: {line.strip()}")
    return found


def test_amounts_are_written_by_the_one_formatter_only():
    """Python writes an amount through baccarat_site.money.display, templates through ``{{ x|amount }}`` (``{% load
    amounts %}``, which calls it), scripts through format.js's formatMoney: no second formatter under another name."""
    found = hand_made_money()
    assert found == {}


@pytest.mark.parametrize(
    ("suffix", "line"),
    [
        (".py", 'return f"{value:,.2f}"'),
        (".py", 'total = f"{txn.player_total:+,.2f}"'),
        (".py", 'format(amount, ",.2f")'),
        (".js", "el.textContent = (cents / 100).toFixed(2);"),
        (".js", "n.toLocaleString('en-US', {minimumFractionDigits: 2})"),
        (".js", 'const money = new Intl.NumberFormat("en-US");'),
        (".html", '<td>{{ asked.amount|floatformat:"2g" }}</td>'),
        (".html", "{{ total|intcomma }}"),
    ],
)
def test_the_hand_made_money_check_catches_each_form(suffix, line):
    assert HAND_MADE_MONEY[suffix].search(line)


@pytest.mark.parametrize(
    ("suffix", "line"),
    [
        (".py", 'f"{test.name:<28} {test.statistic:>12.2f}"'),
        (".py", 'return f"{cents(value):.2f}"'),
        (".js", "const pct = (n) => ((100 * n) / rounds).toFixed(1);"),
        (".html", "{{ row.seconds_to_close|floatformat:0 }} s"),
    ],
)
def test_the_hand_made_money_check_lets_other_numbers_be(suffix, line):
    assert not HAND_MADE_MONEY[suffix].search(line)
