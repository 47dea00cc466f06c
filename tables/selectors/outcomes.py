"""What a bet gets back, in SQL: the payout rule of ``tables.engine.bet_return``, once, for the database.

A bet's return is a function of its amount and its kind's outcome on its round (``tables.models.BetOutcome``:
status and odds): on a win the stake plus ``odds × amount`` truncated to the cent, the stake on a push or a
refund, 0 on a loss, NULL while the bet is open (no outcome). :data:`PAYOUT_SQL` is that rule as SQL text;
:func:`payout_sql` fills it in for raw statements (settlement, the loss limits, reconcile) and
:class:`BetPayout` (``bet_payout()``) is the same text as a Django expression for ``.annotate()`` and aggregates.
``tests/tables/test_payout_rule.py`` holds the SQL equal to the Python rule for every outcome the engine gives.
"""

from __future__ import annotations

from string import Formatter
from typing import Any

from django.db.models import DecimalField, Expression, F, Func

#: The rule, with ``{amount}``, ``{status}`` and ``{odds}`` standing for SQL expressions. ``trunc(x, 2)``
#: truncates toward zero: for the non-negative winnings, down to the cent, as ``money.cents_down`` does.
PAYOUT_SQL = (
    "(CASE {status} WHEN 'won' THEN {amount} + trunc({amount} * {odds}, 2)"
    " WHEN 'push' THEN {amount} WHEN 'refunded' THEN {amount} WHEN 'lost' THEN 0.00 END)"
)

_PARTS = ("amount", "status", "odds")


def payout_sql(amount: str = "b.amount", status: str = "o.status", odds: str = "o.odds") -> str:
    """:data:`PAYOUT_SQL` over the given SQL expressions (by default a bet ``b`` joined to its outcome ``o``)."""
    return PAYOUT_SQL.format(amount=amount, status=status, odds=odds)


class BetPayout(Func):
    """:data:`PAYOUT_SQL` as an ORM expression: what each bet gets back (NULL while open)."""

    output_field = DecimalField(max_digits=16, decimal_places=2)

    def __init__(self, amount: Any, status: Any, odds: Any) -> None:
        super().__init__(amount, status, odds)

    def as_sql(  # type: ignore[override]
        self, compiler: Any, connection: Any, **extra_context: Any
    ) -> tuple[str, list[Any]]:
        compiled = {}
        for name, expression in zip(_PARTS, self.get_source_expressions(), strict=True):
            compiled[name] = compiler.compile(expression)
        # The template names a part more than once: its parameters go in once for each time, in order.
        sql: list[str] = []
        params: list[Any] = []
        for literal, field_name, _spec, _conversion in Formatter().parse(PAYOUT_SQL):
            sql.append(literal)
            if field_name is not None:
                part_sql, part_params = compiled[field_name]
                sql.append(part_sql)
                params.extend(part_params)
        return "".join(sql), params


def bet_payout(prefix: str = "") -> Expression:
    """What each bet gets back, for a queryset of bets (``prefix`` "" ) or of rows that reach a bet through
    ``prefix`` (e.g. ``"bets__"`` from a round): ``Sum(bet_payout())``, ``.annotate(payout=bet_payout())``."""
    return BetPayout(F(f"{prefix}amount"), F(f"{prefix}outcome__status"), F(f"{prefix}outcome__odds"))
