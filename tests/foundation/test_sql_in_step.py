"""The hand-written SQL stays in step with the models.

The hot paths (a confirm, a settlement, a ledger post, reconcile) are raw SQL. Every string in the code
that names one of the project's tables is read here: each table it names must exist, each column it
inserts into or reaches through an alias (``b.status``) must be a column of that table's model, and each
constraint that lists the allowed codes must list exactly the model's choices.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db.models import Q

ROOT = Path(__file__).resolve().parents[2]
SQL_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\b")
TABLE_NAME = re.compile(r"(?<![.\w`])((?:tables|wallets|accounts|authtoken|auth)_[a-z_]+)\b")
ALIAS = re.compile(r"\b(?:FROM|JOIN|UPDATE)\s+([a-z_]+)(?:\s+AS)?\s+([a-z]\w*)\b", re.IGNORECASE)
INSERT = re.compile(r"\bINSERT\s+INTO\s+([a-z_]+)\s*\(([^)]*)\)", re.IGNORECASE)
NOT_ALIASES = {"where", "on", "set", "join", "left", "group", "order", "limit", "for", "returning", "union", "select"}


def schema() -> dict[str, set[str]]:
    return {
        model._meta.db_table: {field.column for field in model._meta.concrete_fields}
        for model in apps.get_models(include_auto_created=True)
    }


def sql_strings() -> list[tuple[str, str]]:
    found = []
    for package in ("baccarat_site", "tables", "wallets"):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                    if SQL_WORDS.search(text) and TABLE_NAME.search(text):
                        found.append((f"{path.relative_to(ROOT)}:{node.lineno}", text))
    return found


def problems(text: str, tables: dict[str, set[str]]) -> list[str]:
    found = []
    for name in TABLE_NAME.findall(text):
        if name not in tables and not name.endswith("_id_seq"):
            found.append(f"no table {name}")
    for table, columns in INSERT.findall(text):
        for column in (c.strip() for c in columns.split(",")):
            if table in tables and column not in tables[table]:
                found.append(f"{table} has no column {column}")
    aliases = {
        alias: table for table, alias in ALIAS.findall(text) if table in tables and alias.lower() not in NOT_ALIASES
    }
    for alias, column in re.findall(r"\b([a-z]\w*)\.([a-z_]+)\b", text):
        if alias in aliases and column not in tables[aliases[alias]]:
            found.append(f"{aliases[alias]} ({alias}) has no column {column}")
    return found


@pytest.fixture(scope="module")
def tables() -> dict[str, set[str]]:
    return schema()


def test_the_reader_finds_the_hot_paths_sql(tables):
    where = [place for place, _text in sql_strings()]
    assert len(where) >= 15
    for module in ("tables/services/settlement.py", "tables/services/placement.py", "wallets/services.py"):
        assert any(place.startswith(module) for place in where), module


def test_every_table_and_column_the_sql_names_exists(tables):
    found = {place: problems(text, tables) for place, text in sql_strings()}
    assert {place: issues for place, issues in found.items() if issues} == {}


def test_the_check_fails_on_sql_that_drifted(tables):
    drifted = (
        "UPDATE tables_bet AS b SET payout = 0 FROM tables_round r WHERE r.id = b.round_id AND b.stake > 0;"
        " INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, sum) VALUES (1, 2, 3);"
        " SELECT 1 FROM tables_bets"
    )
    assert problems(drifted, tables) == [
        "no table tables_bets",
        "wallets_ledgerentry has no column sum",
        "tables_bet (b) has no column stake",
    ]


def allowed_values(model_label: str, constraint: str, field: str) -> set[str]:
    model = apps.get_model(model_label)
    check = next(c for c in model._meta.constraints if c.name == constraint)

    def walk(condition: Q) -> set[str]:
        for child in condition.children:
            if isinstance(child, Q):
                values = walk(child)
                if values:
                    return values
            elif child[0] == f"{field}__in":
                return set(child[1])
        return set()

    return walk(check.condition)


@pytest.mark.parametrize(
    ("model_label", "constraint", "field", "extra"),
    [
        ("tables.Round", "round_state_known", "state", set()),
        ("tables.Round", "round_winner_known", "winner", {""}),
        ("tables.BetOutcome", "bet_outcome_status_known", "status", set()),
        ("tables.BetOutcome", "bet_outcome_mode_known", "mode", set()),
        ("tables.BetOutcome", "bet_outcome_known_type", "type", set()),
        ("tables.Bet", "bet_mode_known", "mode", set()),
        ("tables.Bet", "bet_known_type", "type", set()),
        ("tables.BetPlacement", "placement_mode_known", "mode", set()),
    ],
)
def test_the_database_allows_exactly_the_models_choices(model_label, constraint, field, extra):
    model = apps.get_model(model_label)
    choices = {value for value, _label in model._meta.get_field(field).choices}
    assert choices
    assert allowed_values(model_label, constraint, field) == choices | extra


def test_only_settlement_writes_outcomes_and_placement_never_names_them():
    """A bet's outcome is written when its round is settled or refunded, never on the bet path: placement
    neither names the outcomes' table or model, and no other module's SQL writes them."""
    placement = (ROOT / "tables" / "services" / "placement.py").read_text()
    assert "tables_betoutcome" not in placement
    assert "BetOutcome" not in placement
    assert "outcome__" not in placement
    writes = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+tables_betoutcome\b", re.IGNORECASE)
    writers = {place.split(":")[0] for place, text in sql_strings() if writes.search(text)}
    assert writers == {"tables/services/settlement.py"}
