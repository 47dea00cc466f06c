"""manage.py odds and manage.py simulate, driven through call_command."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tables.engine import DEFAULT_PAYTABLE
from tables.models import Table
from tests.factories import make_variant


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_odds_prints_every_bet_with_its_chance_and_house_edge():
    out, _ = run("odds")
    assert "8 decks" in out
    assert "Banker 45.8597%  Player 44.6247%  Tie 9.5156%" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line and line.split()[0].islower()}
    assert "1.0579%" in lines["banker"]
    assert "14.3596%" in lines["tie"]
    assert "16.6836%" in lines["lucky_six"]
    assert len(lines) == 15


def test_odds_prints_the_return_to_player_truncated_as_the_pages_do():
    out, _ = run("odds", "--decks", "1")
    banker = next(line for line in out.splitlines() if line.startswith("banker "))
    assert banker.split()[-2:] == ["1.0117%", "98.9882%"]  # 98.98825…%: never 98.9883%


def test_odds_for_one_deck_as_json():
    out, _ = run("odds", "--decks", "1", "--json")
    report = json.loads(out)
    assert report["decks"] == 1
    assert round(report["bets"]["banker"]["house_edge"] * 100, 4) == 1.0117
    assert report["bets"]["perfect_pair"]["win"] == 0
    assert set(report["outcomes"]) == {"banker", "player", "tie"}


def test_odds_refuses_a_deck_count_outside_1_to_8():
    with pytest.raises(CommandError, match="between 1 and 8"):
        run("odds", "--decks", "9")


@pytest.mark.django_db
def test_odds_reads_a_tables_variant_paytable_and_decks_from_the_database():
    paytable = DEFAULT_PAYTABLE.to_dict() | {"tie": "9"}
    limits = {t: {"min": "1.00", "max": "100.00"} for t in ("player", "banker", "tie", "any_pair")}
    variant = make_variant("Nine to one", decks=6, paytable=paytable, limits=limits)
    Table.objects.create(name="Salon Prive", variant=variant)
    report = json.loads(run("odds", "--table", "Salon Prive", "--json")[0])
    assert report["decks"] == 6
    assert Decimal(report["paytable"]["tie"]) == 9
    assert report["bets"]["tie"]["house_edge"] < 0.05
    # Only the bets the table offers (Banker in both modes).
    assert set(report["bets"]) == {"player", "banker", "banker_no_commission", "tie", "any_pair"}
    out, _ = run("odds", "--table", "Salon Prive")
    assert 'table "Salon Prive"' in out
    assert "6 decks" in out


@pytest.mark.django_db
def test_odds_says_clearly_when_the_table_does_not_exist():
    with pytest.raises(CommandError, match='no table named "Nowhere"'):
        run("odds", "--table", "Nowhere")


def test_simulate_prints_each_bets_return_with_an_interval_next_to_the_exact_one_and_a_progress_bar():
    out, err = run("simulate", "--rounds", "20000", "--seed", "cmd")
    assert "20,000 rounds" in out
    banker = next(line for line in out.splitlines() if line.startswith("banker "))
    assert "-1.0579%" in banker
    assert "[" in banker
    assert "20,000/20,000 rounds" in err
    assert "#" * 30 in err


def test_simulate_as_json_is_reproducible_with_a_seed():
    first = json.loads(run("simulate", "--rounds", "5000", "--decks", "6", "--seed", "7", "--json")[0])
    second = json.loads(run("simulate", "--rounds", "5000", "--decks", "6", "--seed", "7", "--json")[0])
    assert first["bets"] == second["bets"]
    assert first["rounds"] == 5000
    assert first["decks"] == 6
    assert len(first["bets"]) == 15
    banker = first["bets"]["banker"]
    assert banker["ci95_low"] <= banker["return"] <= banker["ci95_high"]
    assert round(banker["exact_return"], 6) == -0.010558


def test_simulate_refuses_bad_arguments():
    with pytest.raises(CommandError, match="rounds"):
        run("simulate", "--rounds", "0")
    with pytest.raises(CommandError, match="decks"):
        run("simulate", "--rounds", "10", "--decks", "0")
