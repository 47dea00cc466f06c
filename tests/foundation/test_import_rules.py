"""The layers, asserted: every application module sits in one layer of :data:`LAYERS`, no import goes from a lower
layer to a higher one, and money is defined once.

Read from the source with ``ast`` (every import statement, at any depth: an import inside a function or under
``TYPE_CHECKING`` counts as any other), so a new module is checked the moment it exists, and a module the map
does not name fails (its name in the message) until it is given a layer.

The map lives here, at the top of the test that holds it, and nowhere else: one place to read where a module
sits and what it may import, and one line to add with a new module. Lowest first:

1. **kernel**: ``baccarat_site``'s plumbing every app shares (money, db, clock, errors, events, audit, roles, the
   Redis and Celery clients, the REST error bodies): it imports no app. The Celery app is here, not with the site's
   wiring: a service queues a task by name through it (``tables.services.risk``), and it imports no app.
2. **engine**: ``tables.engine``, plain Python: no Django, nothing of the project but itself and
   ``baccarat_site.money``.
3. **wallets**: the ledger (models, selectors, services): nothing from the accounts or the tables.
4. **accounts**: players, their limits and stops (models, selectors, services, limits, tokens): nothing from the
   tables. The tables pass the accounts what a check needs of the play (the bets' stake and return figures,
   ``tables.selectors.spending``; the smallest stake, ``table_minimum_stake``), and the accounts send to a
   player's sockets through the kernel (``baccarat_site.events``).
5. **tables**: models, selectors, services and the table's own plumbing (events, frame sequence, presence).
6. **edges**: what a request, a socket, a task, a command or the admin reaches: views, APIs, consumers and their
   hub, admin pages, forms, tasks, URL and routing tables, management commands, template tags, middleware,
   signal receivers and app configs, of every app. Each validates, calls a service or a selector, and renders.
7. **site**: the wiring that names the edges: settings, URLs, ASGI and WSGI, the launcher, daphne's entry point.

Besides the order: services and selectors import no edge, and selectors no service; the engine imports no
Django; the module import graph has no cycle (type-only imports aside).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("baccarat_site", "tables", "wallets")

#: Every application module of :data:`PACKAGES` (migrations aside), by layer, lowest first. A pattern names a
#: module (``"baccarat_site.money"``); ``"a.b.*"`` names ``a.b`` and everything beneath it, whether ``a.b`` is a
#: module or a package; any other ``*`` matches across dots (``"tables.admin*"``: ``tables.admin``,
#: ``tables.admin_floor``, ``tables.admin_records.money`` …). A module named by two layers fails, as one named by
#: none, and so does a pattern that names nothing.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "kernel",
        (
            "baccarat_site",
            "baccarat_site.adminkit",
            "baccarat_site.after_response",
            "baccarat_site.api",
            "baccarat_site.api.errors",
            "baccarat_site.api.fields",
            "baccarat_site.api.pagination",
            "baccarat_site.audit",
            "baccarat_site.bodylimit",
            "baccarat_site.cancelling",
            "baccarat_site.celery",
            "baccarat_site.channel_layer",
            "baccarat_site.client_address",
            "baccarat_site.clock",
            "baccarat_site.csvexport",
            "baccarat_site.db",
            "baccarat_site.db_router",
            "baccarat_site.embedded",
            "baccarat_site.env",
            "baccarat_site.errors",
            "baccarat_site.events",
            "baccarat_site.jsonlimits",
            "baccarat_site.middleware",
            "baccarat_site.money",
            "baccarat_site.numbers",
            "baccarat_site.redis_client",
            "baccarat_site.redis_config",
            "baccarat_site.roles",
            "baccarat_site.ws_gate",
            "baccarat_site.ws_origin",
        ),
    ),
    ("engine", ("tables.engine.*",)),
    ("wallets", ("wallets", "wallets.models", "wallets.selectors", "wallets.services")),
    (
        "accounts",
        (
            "baccarat_site.accounts",
            "baccarat_site.accounts.limits",
            "baccarat_site.accounts.lockout",
            "baccarat_site.accounts.models",
            "baccarat_site.accounts.passwords",
            "baccarat_site.accounts.selectors",
            "baccarat_site.accounts.services",
            "baccarat_site.accounts.tokens",
        ),
    ),
    (
        "tables",
        (
            "tables",
            "tables.events",
            "tables.labels",
            "tables.models.*",
            "tables.presence",
            "tables.selectors.*",
            "tables.sequence",
            "tables.services.*",
        ),
    ),
    (
        "edges",
        (
            "baccarat_site.accounts.admin",
            "baccarat_site.accounts.apis",
            "baccarat_site.accounts.apps",
            "baccarat_site.accounts.context_processors",
            "baccarat_site.accounts.forms",
            "baccarat_site.accounts.management.*",
            "baccarat_site.accounts.middleware",
            "baccarat_site.accounts.signals",
            "baccarat_site.accounts.urls",
            "baccarat_site.accounts.views",
            "wallets.admin",
            "wallets.apis",
            "wallets.apps",
            "wallets.forms",
            "wallets.management.*",
            "wallets.templatetags.*",
            "tables.admin*",
            "tables.apis",
            "tables.apps",
            "tables.broadcast",
            "tables.consumers",
            "tables.dealer_apis",
            "tables.dealer_consumers",
            "tables.hub",
            "tables.lobby",
            "tables.management.*",
            "tables.routing",
            "tables.socketcap",
            "tables.tasks",
            "tables.templatetags.*",
            "tables.urls",
            "tables.views.*",
        ),
    ),
    (
        "site",
        (
            "baccarat_site.api.urls",
            "baccarat_site.asgi",
            "baccarat_site.daphne_server.*",
            "baccarat_site.run",
            "baccarat_site.settings",
            "baccarat_site.settings_typecheck",
            "baccarat_site.urls",
            "baccarat_site.wsgi",
        ),
    ),
)
LAYER_NAMES = [name for name, _patterns in LAYERS]
EDGE_LAYERS = ("edges", "site")


# ── the checker: plain functions over names, so it can be fed a made-up project ──


def named_by(module: str, pattern: str) -> bool:
    """Whether ``pattern`` (as :data:`LAYERS` writes them) names ``module``."""
    if pattern.endswith(".*") and "*" not in pattern[:-2]:
        package = pattern[:-2]
        return module == package or module.startswith(package + ".")
    if "*" in pattern:
        return fnmatch.fnmatchcase(module, pattern)
    return module == pattern


def layers_of(module: str, layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS) -> list[str]:
    """The layers whose patterns name ``module`` (one, in a sound map)."""
    return [name for name, patterns in layers if any(named_by(module, p) for p in patterns)]


def map_faults(modules: Iterable[str], layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS) -> list[str]:
    """What is wrong with the map for these modules: one named by no layer or by two, a pattern naming none."""
    modules = sorted(modules)
    faults = []
    for module in modules:
        found = layers_of(module, layers)
        if not found:
            faults.append(f"{module} is in no layer: add it to LAYERS")
        elif len(found) > 1:
            faults.append(f"{module} is in more than one layer: {', '.join(found)}")
    for name, patterns in layers:
        for pattern in patterns:
            if not any(named_by(module, pattern) for module in modules):
                faults.append(f"{pattern!r} ({name}) names no module")
    return faults


def owner(target: str, modules: Iterable[str]) -> str | None:
    """The application module an imported name lives in (``tables.models.Bet`` → ``tables.models``), or None."""
    known = set(modules)
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def upward_imports(
    imports: Mapping[str, Iterable[str]], layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS
) -> list[str]:
    """Every import from a lower layer to a higher one, as ``"importer (layer) imports target (layer)"``."""
    order = {name: rank for rank, (name, _patterns) in enumerate(layers)}
    found = []
    for importer, targets in sorted(imports.items()):
        mine = layers_of(importer, layers)
        for target in sorted({owner(t, imports) for t in targets} - {None, importer}):
            theirs = layers_of(target, layers)  # type: ignore[arg-type]
            if len(mine) == 1 and len(theirs) == 1 and order[theirs[0]] > order[mine[0]]:
                found.append(f"{importer} ({mine[0]}) imports {target} ({theirs[0]})")
    return found


def cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles among the modules of ``imports`` (strongly connected parts of more than one module)."""
    graph = {name: sorted({owner(t, imports) for t in targets} - {None, name}) for name, targets in imports.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:  # type: ignore[union-attr]
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


# ── the project, read ──────────────────────────────────────────────────────


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


def _type_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and getattr(test, "id", getattr(test, "attr", "")) == (
        "TYPE_CHECKING"
    )


def imports_of(path: Path, module: str, *, type_only: bool = True) -> set[str]:
    """Every module ``path`` imports, absolute (relative imports resolved against ``module``); without the
    imports under ``if TYPE_CHECKING:`` when ``type_only`` is False."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    skipped: set[int] = set()
    if not type_only:
        for node in ast.walk(tree):
            if _type_only(node):
                skipped.update(id(inner) for child in node.body for inner in ast.walk(child))  # type: ignore[attr-defined]
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def layer(name: str) -> str | None:
    """The layer of the application module ``name`` lives in (``tables.models.Bet`` → ``tables``), or None."""
    module = owner(name, MODULES)
    found = layers_of(module) if module is not None else []
    return found[0] if len(found) == 1 else None


def is_edge(name: str) -> bool:
    return layer(name) in EDGE_LAYERS


def offences(importer: str, forbidden: object) -> list[str]:
    return sorted(target for target in IMPORTS[importer] if forbidden(target))  # type: ignore[operator]


def in_layer(name: str) -> list[str]:
    return sorted(m for m in MODULES if layers_of(m) == [name])


# ── the project, held to the map ───────────────────────────────────────────


def test_the_checker_sees_the_whole_project():
    assert len(MODULES) > 80
    assert "tables.services.settlement" in MODULES
    assert "wallets.services" in MODULES
    # and it resolves what it reads: the settlement's own imports are found
    assert "baccarat_site.money" in IMPORTS["tables.services.settlement"]
    assert "wallets.services" in IMPORTS["tables.services.settlement"]
    assert "tables.engine.bets.BET_TYPES" in IMPORTS["tables.engine"]  # a relative import, resolved


def test_every_application_module_is_in_exactly_one_layer():
    """A new module fails here until LAYERS gives it a layer; a pattern left naming nothing (a module moved or
    deleted) fails too."""
    assert map_faults(MODULES) == []


def test_no_import_goes_from_a_lower_layer_to_a_higher_one():
    assert upward_imports(IMPORTS) == []


def test_the_accounts_and_the_tables_go_one_way():
    """The accounts sit below the tables: nothing of the accounts' layer imports the tables (the tables pass it
    what it needs), while the tables use the accounts' models, selectors, services and limits."""
    accounts = in_layer("accounts")
    assert "baccarat_site.accounts.limits" in accounts
    assert {m: offences(m, lambda t: under(t, "tables")) for m in accounts} == {m: [] for m in accounts}
    assert any(under(t, "baccarat_site.accounts") for t in IMPORTS["tables.services.placement"])


def test_no_module_imports_itself_back_through_others():
    """No import cycle among the application modules, at any depth (an import moved into a function to dodge a
    cycle is still one); only imports for type checking are left out."""
    typed_out = {name: imports_of(path, name, type_only=False) for name, path in MODULES.items()}
    assert cycles(typed_out) == []


@pytest.mark.parametrize("module", in_layer("engine"))
def test_the_engine_imports_no_django_and_nothing_of_the_project_but_money(module):
    def forbidden(target: str) -> bool:
        if under(target, "django", "rest_framework", "channels", "celery"):
            return True
        return under(target, *PACKAGES) and not under(target, "tables.engine", "baccarat_site.money")

    assert offences(module, forbidden) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if under(m, "wallets")))
def test_wallets_import_nothing_from_tables_or_the_accounts(module):
    assert offences(module, lambda t: under(t, "tables", "baccarat_site.accounts")) == []


@pytest.mark.parametrize("module", in_layer("kernel"))
def test_the_kernel_imports_no_app(module):
    assert offences(module, lambda t: under(t, "tables", "wallets", "baccarat_site.accounts")) == []


LOGIC = sorted(m for m in MODULES if any(part in ("services", "selectors") for part in m.split(".")))


@pytest.mark.parametrize("module", LOGIC)
def test_services_and_selectors_import_no_edge(module):
    assert offences(module, lambda t: under(t, *PACKAGES) and is_edge(t)) == []


@pytest.mark.parametrize("module", [m for m in LOGIC if "selectors" in m.split(".")])
def test_selectors_import_no_service(module):
    assert offences(module, lambda t: under(t, *PACKAGES) and "services" in t.split(".")) == []


# ── the checker can fail: a made-up project ────────────────────────────────

#: A small sound project in the real map's layers.
SOUND = {
    "baccarat_site.money": set(),
    "tables.engine.cards": {"baccarat_site.money.ZERO"},
    "wallets.services": {"baccarat_site.money"},
    "baccarat_site.accounts.limits": {"wallets.services.wallet_lock"},
    "tables.selectors.outcomes": set(),
    "tables.services.placement": {"baccarat_site.accounts.limits.play_limits_check_bets", "tables.engine.cards"},
    "baccarat_site.accounts.views": {"tables.services.placement.bet_place"},
    "baccarat_site.urls": {"baccarat_site.accounts.views"},
}


def test_a_sound_made_up_project_passes():
    assert map_faults(SOUND, [(n, tuple(m for m in SOUND if layers_of(m) == [n])) for n in LAYER_NAMES]) == []
    assert upward_imports(SOUND) == []
    assert cycles(SOUND) == []


def test_a_module_outside_the_map_fails_with_its_name():
    project = {**SOUND, "tables.scoreboard": {"tables.models"}}
    assert "tables.scoreboard is in no layer: add it to LAYERS" in map_faults(project)


def test_a_module_in_two_layers_and_a_pattern_naming_nothing_fail():
    layers = (("kernel", ("baccarat_site.money", "baccarat_site.gone")), ("engine", ("baccarat_site.money",)))
    faults = map_faults(["baccarat_site.money"], layers)
    assert "baccarat_site.money is in more than one layer: kernel, engine" in faults
    assert "'baccarat_site.gone' (kernel) names no module" in faults


@pytest.mark.parametrize(
    ("importer", "target", "offence"),
    [
        # the pair this map settles, both ways: the accounts below the tables, and the tables below every edge
        (
            "baccarat_site.accounts.limits",
            "tables.selectors.outcomes.payout_sql",
            "baccarat_site.accounts.limits (accounts) imports tables.selectors.outcomes (tables)",
        ),
        (
            "tables.services.placement",
            "baccarat_site.accounts.views.profile",
            "tables.services.placement (tables) imports baccarat_site.accounts.views (edges)",
        ),
        (
            "wallets.services",
            "baccarat_site.accounts.limits",
            "wallets.services (wallets) imports baccarat_site.accounts.limits (accounts)",
        ),
        (
            "tables.engine.cards",
            "tables.services.placement",
            "tables.engine.cards (engine) imports tables.services.placement (tables)",
        ),
        ("baccarat_site.money", "wallets.services", "baccarat_site.money (kernel) imports wallets.services (wallets)"),
        (
            "baccarat_site.accounts.views",
            "baccarat_site.urls",
            "baccarat_site.accounts.views (edges) imports baccarat_site.urls (site)",
        ),
    ],
)
def test_an_import_from_a_lower_layer_to_a_higher_one_fails(importer, target, offence):
    project = {name: set(targets) for name, targets in SOUND.items()}
    project[importer].add(target)
    assert upward_imports(project) == [offence]


def test_a_cycle_fails_even_through_a_function_level_import(tmp_path):
    """The accounts' old dodge: a selector importing, inside a function, the module that imports it."""
    selector = tmp_path / "tables.py"
    selector.write_text("def personal_limits():\n    from baccarat_site.accounts.selectors import personal_limits_of\n")
    project = {
        "tables.selectors.tables": imports_of(selector, "tables.selectors.tables", type_only=False),
        "baccarat_site.accounts.selectors": {"tables.selectors.tables.table_minimum_stake"},
    }
    assert cycles(project) == [["baccarat_site.accounts.selectors", "tables.selectors.tables"]]
    assert upward_imports(project) == [
        "baccarat_site.accounts.selectors (accounts) imports tables.selectors.tables (tables)"
    ]


def test_a_type_only_import_is_left_out_of_the_cycles_only(tmp_path):
    hub = tmp_path / "hub.py"
    hub.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tables.consumers import TableConsumer\n"
    )
    assert "tables.consumers" in imports_of(hub, "tables.hub")
    assert "tables.consumers" not in imports_of(hub, "tables.hub", type_only=False)


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
