"""The payout rule is one rule: ``tables.engine.bet_return`` (Python) and ``tables.selectors.outcomes`` (SQL, raw
and as an ORM expression) give every bet the same return, and both equal ``engine.settle_outcome``'s payout, for
every bet type, mode and outcome the engine can produce, over amounts from 0.01 to 99,999.99."""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import CharField, DecimalField, Value
from django.db.models.sql import Query
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables import engine
from tables.engine import BET_TYPES, DEFAULT_PAYTABLE, MODES, Paytable, deal_round, parse_cards
from tables.engine.payouts import bet_outcome, bet_return, facts_of
from tables.models import Bet
from tables.selectors.outcomes import BetPayout, payout_sql

pytestmark = pytest.mark.django_db

CARDS = [f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "SHDC"]
STATUSES = ("won", "lost", "push", "refunded")
EDGE_AMOUNTS = [Decimal(a) for a in ("0.01", "0.02", "0.03", "0.19", "0.99", "1.00", "3.33", "7.77", "99999.99")]
#: odds a paytable can hold (variants keep two places, 0.01 to 1000) and the defaults' odd ones
SPECIAL_ODDS = [Decimal(o) for o in ("0", "0.01", "0.5", "0.95", "1", "1.5", "3.5", "8", "9", "11", "25", "1000")]


def paytable_odds(paytable: Paytable) -> set[Decimal]:
    odds = {getattr(paytable, f.name) for f in fields(paytable) if f.name != "bonus_margins"}
    return odds | {o for _m, o in paytable.bonus_margins}


def sql_returns(cases: list[tuple[Decimal, str, Decimal]]) -> list[tuple[Decimal, Decimal]]:
    """(raw SQL, ORM expression) returns of each (amount, status, odds), evaluated by PostgreSQL in one statement:
    amounts as ``tables_bet.amount`` holds them, odds as ``tables_betoutcome.odds`` does."""
    query = Query(Bet)
    orm = BetPayout(
        Value(Decimal(0), output_field=DecimalField(max_digits=12, decimal_places=2)),
        Value("", output_field=CharField()),
        Value(Decimal(0), output_field=DecimalField(max_digits=12, decimal_places=4)),
    ).resolve_expression(query)
    # the ORM's SQL over the same columns: its three parts replaced by the columns of the VALUES list
    orm.set_source_expressions([_Raw("v.amount"), _Raw("v.status"), _Raw("v.odds")])
    orm_sql, orm_params = orm.as_sql(query.get_compiler(connection=connection), connection)
    assert orm_params == []
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {payout_sql('v.amount', 'v.status', 'v.odds')}, {orm_sql} FROM unnest("
            "%s::numeric(12,2)[], %s::varchar[], %s::numeric(12,4)[]) WITH ORDINALITY AS v(amount, status, odds, n)"
            " ORDER BY v.n",
            [[a for a, _s, _o in cases], [s for _a, s, _o in cases], [o for _a, _s, o in cases]],
        )
        return cursor.fetchall()


class _Raw(Value):
    """A column of the test's VALUES list, compiled as is."""

    def __init__(self, sql: str) -> None:
        super().__init__(None)
        self.sql = sql

    def as_sql(self, compiler, connection):  # type: ignore[override]
        return self.sql, []


def test_every_odds_of_the_paytables_and_every_status_pay_alike_in_python_and_sql():
    odds = paytable_odds(DEFAULT_PAYTABLE) | paytable_odds(Paytable(tie=Decimal(9))) | set(SPECIAL_ODDS)
    cases = [(amount, "won", o) for amount in EDGE_AMOUNTS for o in sorted(odds)]
    cases += [(amount, status, Decimal(0)) for amount in EDGE_AMOUNTS for status in ("lost", "push", "refunded")]
    returns = sql_returns(cases)
    expected = [bet_return(amount, status, o) for amount, status, o in cases]
    assert [raw for raw, _orm in returns] == expected
    assert [orm for _raw, orm in returns] == expected
    assert bet_return(Decimal("3.33"), "won", Decimal("0.95")) == Decimal("6.49")  # 3.1635 rounded down
    assert bet_return(Decimal("0.01"), "won", Decimal("0.5")) == Decimal("0.01")  # winnings of 0.005: none


def test_an_open_bet_returns_nothing_yet_in_sql_and_python_refuses_to_say():
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {payout_sql('10.00::numeric', 'NULL::varchar', 'NULL::numeric')}")
        assert cursor.fetchone() == (None,)
    with pytest.raises(ValueError, match="open"):
        bet_return(Decimal("10.00"), "open", Decimal(0))


odds_values = st.one_of(
    st.sampled_from(SPECIAL_ODDS),
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1000"), places=2),
)
paytables = st.builds(
    Paytable,
    player=odds_values,
    banker=odds_values,
    banker_no_commission=odds_values,
    banker_no_commission_six=odds_values,
    tie=st.sampled_from([Decimal(8), Decimal(9)]),
    player_natural=odds_values,
    bonus_natural=odds_values,
    lucky_six_two_cards=odds_values,
    lucky_six_three_cards=odds_values,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cards=st.lists(st.sampled_from(CARDS), min_size=6, max_size=6),
    paytable=st.one_of(st.just(DEFAULT_PAYTABLE), paytables),
    amounts=st.lists(
        st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99999.99"), places=2), min_size=1, max_size=4
    ),
)
def test_sql_and_python_return_what_the_engine_settles(cards, paytable, amounts):
    result = deal_round(iter(parse_cards(" ".join(cards))))
    facts = facts_of(result)
    cases, engine_says = [], []
    for bet_type in BET_TYPES:
        for mode in MODES:
            status, odds = bet_outcome(bet_type, facts, mode, paytable)
            for amount in amounts:
                cases.append((amount, status, odds))
                engine_says.append(engine.settle_outcome(bet_type, amount, result, mode=mode, paytable=paytable))
                cases.append((amount, "refunded", Decimal(0)))  # a cancelled round, the same kind
                engine_says.append(("refunded", amount))
    python = [bet_return(amount, status, odds) for amount, status, odds in cases]
    assert python == [payout for _status, payout in engine_says]
    assert [s for _a, s, _o in cases] == [status for status, _payout in engine_says]
    assert sql_returns(cases) == [(p, p) for p in python]
