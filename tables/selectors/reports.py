"""Read-only figures for operators: the live floor, the per-table and per-player daily reports.

Aggregation happens in SQL (Django ORM aggregates); Python only merges a handful of grouped rows and
prices them with the engine (house edges, worst-case exposure). Every day is a UTC day.

Definitions
-----------
- **Turnover**: the sum of the stakes of *settled* bets (won, lost, push). Refunded bets are never
  turnover; bets still open in a live round are not counted yet. A bet belongs to the day its round was
  settled (its round's ``settled_at``; a bet's outcome is its kind's ``BetOutcome`` on the round), so a day's
  turnover and its payouts always describe the same bets.
- **Payouts**: what those bets returned to the players (stake + winnings on a win, the stake on a push).
- **GGR** (gross gaming revenue): turnover − payouts. **Actual hold**: GGR / turnover, in %.
- **Theoretical hold**: the stake-weighted mean of the exact house edges
  (:func:`tables.engine.house_edges`) of the bets actually staked, each bet priced with *its own round's*
  terms: the paytable the round opened with (``Round.terms["paytable"]``) and the deck count of the shoe it
  was dealt from (:attr:`tables.models.Shoe.decks`). A Banker bet in No-Commission mode is priced with the
  ``"banker_no_commission"`` edge, every other bet with its type's edge. So a settled day's figure never
  moves when an operator later edits the variant (paytable or decks), and a day that mixes terms (an edit
  at noon, a new shoe with another deck count) prices each round with what it was played under. Bets are
  grouped in SQL by (decks, paytable), and the edges are computed once per distinct terms (cached). Only
  rows that predate ``Round.terms`` (an empty ``terms``) or a shoe state without a deck count fall back to
  the table's current variant.
- **Worst-case exposure** (live floor): the most the house can lose on the live round's open bets, priced
  with that round's own paytable (``Round.terms``) over every outcome the *current shoe's* deck count allows
  (:attr:`tables.models.Shoe.decks`: a variant switched mid-shoe to one deck changes nothing until the next
  shoe), exact once the result is dealt; see
  :func:`tables.engine.exposure.worst_case_exposure` and :func:`round_exposure`.
- **Player day** (ledger): opening balance = the sum of the wallet's ledger entries before the day;
  stakes, payouts, refunds and other movements (deposits, withdrawals, adjustments) = the day's entries
  by transaction kind; closing = opening + the day's entries.
- **Days**: a report covers UTC days from :data:`FIRST_DAY` (2000-01-01) to :data:`LAST_DAY` (9998-12-31);
  the admin's forms refuse others with a form error (:func:`day_range` raises ValueError on them).
- **CSV**: every export is written by :mod:`baccarat_site.csvexport` (amounts and percentages as plain
  numbers, text cells that could start a spreadsheet formula prefixed with ``'``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from baccarat_site.money import CENT, ZERO, cents

# The exposure rule is the engine's (possible outcomes, pricing, rounding); the floor prices live rounds with it.
from tables.engine import BET_TYPES, Paytable, house_edges
from tables.engine.exposure import Exposure, result_exposure, stake_key, worst_case_exposure
from tables.engine.payouts import facts_of
from tables.models import Bet, Round, Table, shoe_decks_sql
from tables.selectors.outcomes import bet_payout
from tables.selectors.tables import round_result_of
from wallets.models import LedgerEntry, LedgerTransaction, Wallet

SETTLED_BET_STATES = (Bet.Status.WON, Bet.Status.LOST, Bet.Status.PUSH)
LIVE_ROUND_STATES = (
    Round.State.BETTING,
    Round.State.CLOSED,
    Round.State.DEALING,
    Round.State.RESULT,
    Round.State.PAUSED,
)
TRADITIONAL = "traditional"
NO_COMMISSION = "no_commission"


# ── days and numbers ────────────────────────────────────────────────────────


def utc_today(now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(UTC).date()


def day_start(day: date) -> datetime:
    """Midnight UTC at the start of ``day``."""
    return datetime.combine(day, time.min, tzinfo=UTC)


#: The days a report can cover. The last leaves room for the day after it (``date.max`` has none, and its
#: next midnight cannot be written); the first is before any play this software could have recorded.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(9998, 12, 31)


def day_range(date_from: date, date_to: date) -> tuple[datetime, datetime]:
    """[start of ``date_from``, start of the day after ``date_to``) in UTC.

    Raises ValueError outside [:data:`FIRST_DAY`, :data:`LAST_DAY`]: forms refuse such days first.
    """
    if not (FIRST_DAY <= date_from <= LAST_DAY and FIRST_DAY <= date_to <= LAST_DAY):
        raise ValueError(f"report days run from {FIRST_DAY} to {LAST_DAY}")
    return day_start(date_from), day_start(date_to + timedelta(days=1))


def percent(part: Decimal | Fraction, whole: Decimal | Fraction) -> Decimal | None:
    """``part / whole`` in %, two decimals (half up); None when ``whole`` is zero."""
    if not whole:
        return None
    ratio = Fraction(part) / Fraction(whole) * 100
    return (Decimal(ratio.numerator) / Decimal(ratio.denominator)).quantize(CENT, rounding=ROUND_HALF_UP)


# ── house edges (theoretical hold) ──────────────────────────────────────────


@lru_cache(maxsize=32)
def _house_edges(decks: int, paytable: Any) -> dict[str, Fraction]:
    return house_edges(decks=decks, paytable=paytable)


@lru_cache(maxsize=64)
def _paytable_of_json(text: str) -> Paytable:
    return Paytable.from_dict(json.loads(text))


def terms_paytable(paytable: Mapping[str, Any] | None, *, fallback: Table) -> Paytable:
    """The engine's paytable from a round's ``terms["paytable"]`` (parsed once per distinct paytable), or the
    ``fallback`` table's current variant's for a round without terms."""
    if not paytable:
        return fallback.variant.engine_paytable()
    return _paytable_of_json(json.dumps(paytable, sort_keys=True))


def round_terms(round_: Round) -> tuple[int, Paytable]:
    """(decks, paytable) a round is played under: its shoe's deck count and the paytable it opened with.

    The table's current variant only stands in for what a round does not record (no terms, a shoe state
    without decks): a variant edit or a switch to another variant never reaches a round already open.
    """
    variant = round_.table.variant
    decks = round_.shoe.decks or variant.decks
    return decks, terms_paytable(round_.terms.get("paytable") if round_.terms else None, fallback=round_.table)


def edge_key(bet_type: str, mode: str) -> str:
    """The :func:`tables.engine.house_edges` key pricing a bet: Banker in No-Commission mode has its own."""
    return "banker_no_commission" if bet_type == "banker" and mode == NO_COMMISSION else bet_type


def expected_house_win(stakes: dict[tuple[str, str], Decimal], *, decks: int, paytable: Any) -> Fraction:
    """Σ stakes × exact house edge over ``{(bet type, mode): stakes}``: what the house expects to keep."""
    edges = _house_edges(decks, paytable)
    return sum((Fraction(amount) * edges[edge_key(t, m)] for (t, m), amount in stakes.items()), Fraction(0))


# ── worst-case exposure ─────────────────────────────────────────────────────


def round_exposure(round_: Round, bets: Iterable[tuple[str, str, Decimal, int]]) -> Exposure:
    """The exposure of a live round's open bets: exact once the result is dealt, else the worst case.

    Priced with the round's own terms (:func:`round_terms`): the paytable it opened with and its shoe's
    deck count, whatever the table's variant says now (a mid-shoe switch to a one-deck variant must not
    make Perfect pairs impossible in a six-deck shoe).
    """
    decks, paytable = round_terms(round_)
    if round_.winner and round_.cards:
        return result_exposure(bets, facts=facts_of(round_result_of(round_)), paytable=paytable)
    return worst_case_exposure(bets, decks=decks, paytable=paytable)


# ── settled bets by table and day (reports and the floor) ────────────────────


def _settled_bets(start: datetime, end: datetime, table_id: int | None = None) -> Any:
    bets = Bet.objects.filter(
        outcome__status__in=SETTLED_BET_STATES,
        round__settled_at__gte=start,
        round__settled_at__lt=end,
    )
    if table_id is not None:
        bets = bets.filter(round__table_id=table_id)
    return bets


def ggr_by_table(start: datetime, end: datetime) -> dict[int, Decimal]:
    """``{table id: GGR}`` of the bets settled in [start, end) (tables without any are left out)."""
    rows = (
        _settled_bets(start, end)
        .values("round__table_id")
        .annotate(turnover=Sum("amount"), payouts=Sum(bet_payout()))
        .order_by()
    )
    return {row["round__table_id"]: cents(row["turnover"]) - cents(row["payouts"]) for row in rows}


@dataclass
class TableDay:
    day: date
    table_id: int
    table_name: str
    rounds: int = 0
    bets: int = 0
    turnover: Decimal = ZERO
    payouts: Decimal = ZERO
    #: Σ stakes × house edge (unrounded), the theoretical GGR
    expected: Fraction = Fraction(0)
    #: {(bet type, mode): stakes}, what the theoretical hold is weighted by
    stakes: dict[tuple[str, str], Decimal] = field(default_factory=dict, repr=False)

    @property
    def theoretical_hold_pct(self) -> Decimal | None:
        return percent(self.expected, self.turnover)

    @property
    def ggr(self) -> Decimal:
        return self.turnover - self.payouts

    @property
    def hold_pct(self) -> Decimal | None:
        return percent(self.ggr, self.turnover)


def table_day_report(*, date_from: date, date_to: date, table_id: int | None = None) -> list[TableDay]:
    """One row per table and UTC day with a settled round or a settled bet, by day then table name."""
    start, end = day_range(date_from, date_to)
    rounds = Round.objects.filter(state=Round.State.SETTLED, settled_at__gte=start, settled_at__lt=end)
    if table_id is not None:
        rounds = rounds.filter(table_id=table_id)
    round_rows = list(
        rounds.annotate(day=TruncDate("settled_at", tzinfo=UTC))
        .values("table_id", "day")
        .annotate(rounds=Count("id"))
        .order_by()
    )
    # One row per table, day, terms (shoe decks, the round's paytable) and kind of bet: a handful per day.
    bet_rows = (
        _settled_bets(start, end, table_id)
        .annotate(day=TruncDate("round__settled_at", tzinfo=UTC), decks=shoe_decks_sql("round__shoe__state"))
        .values("round__table_id", "day", "decks", "round__terms__paytable", "type", "mode")
        .annotate(bets=Count("id"), turnover=Sum("amount"), payouts=Sum(bet_payout()))
        .order_by()
    )
    days: dict[tuple[int, date], TableDay] = {}

    def row(table: int, day: date) -> TableDay:
        if (table, day) not in days:
            days[(table, day)] = TableDay(day=day, table_id=table, table_name="")
        return days[(table, day)]

    for r in round_rows:
        row(r["table_id"], r["day"]).rounds = r["rounds"]
    bet_rows = list(bet_rows)
    tables = Table.objects.select_related("variant").in_bulk(
        {r["table_id"] for r in round_rows} | {b["round__table_id"] for b in bet_rows}
    )
    for b in bet_rows:
        d = row(b["round__table_id"], b["day"])
        d.bets += b["bets"]
        d.turnover += cents(b["turnover"])
        d.payouts += cents(b["payouts"])
        key = (b["type"], edge_mode(b["type"], b["mode"]))
        d.stakes[key] = d.stakes.get(key, ZERO) + cents(b["turnover"])
        # Priced with the terms of the rounds these bets were played in (module docstring).
        table = tables[b["round__table_id"]]
        decks = b["decks"] or table.variant.decks
        paytable = terms_paytable(b["round__terms__paytable"], fallback=table)
        d.expected += expected_house_win({key: cents(b["turnover"])}, decks=decks, paytable=paytable)
    for (table_pk, _day), d in days.items():
        d.table_name = tables[table_pk].name
    return sorted(days.values(), key=lambda d: (d.day, d.table_name, d.table_id))


def edge_mode(bet_type: str, mode: str) -> str:
    return stake_key(bet_type, mode)[1]


@dataclass
class TableReportTotals:
    rounds: int
    bets: int
    turnover: Decimal
    payouts: Decimal
    ggr: Decimal
    hold_pct: Decimal | None
    theoretical_hold_pct: Decimal | None


def table_report_totals(rows: list[TableDay]) -> TableReportTotals:
    """The whole range: sums, and both holds over all of it."""
    turnover = sum((r.turnover for r in rows), ZERO)
    payouts = sum((r.payouts for r in rows), ZERO)
    return TableReportTotals(
        rounds=sum(r.rounds for r in rows),
        bets=sum(r.bets for r in rows),
        turnover=turnover,
        payouts=payouts,
        ggr=turnover - payouts,
        hold_pct=percent(turnover - payouts, turnover),
        theoretical_hold_pct=percent(sum((r.expected for r in rows), Fraction(0)), turnover),
    )


# ── players by day (the ledger) ─────────────────────────────────────────────


@dataclass
class PlayerDay:
    day: date
    wallet_id: int
    username: str
    opening: Decimal
    stakes: Decimal  # positive: what the player staked
    payouts: Decimal
    refunds: Decimal
    other: Decimal  # deposits − withdrawals ± adjustments

    @property
    def closing(self) -> Decimal:
        return self.opening - self.stakes + self.payouts + self.refunds + self.other


def player_day_report(*, date_from: date, date_to: date, username: str | None = None) -> list[PlayerDay]:
    """One row per player wallet and UTC day with ledger entries, by day then username."""
    kind = LedgerTransaction.Kind
    start, end = day_range(date_from, date_to)
    entries = LedgerEntry.objects.filter(wallet__kind=Wallet.Kind.PLAYER)
    if username:
        entries = entries.filter(wallet__user__username=username)
    rows = list(
        entries.filter(transaction__created_at__gte=start, transaction__created_at__lt=end)
        .annotate(day=TruncDate("transaction__created_at", tzinfo=UTC))
        .values("wallet_id", "wallet__user__username", "day")
        .annotate(
            stakes=Sum("amount", filter=Q(transaction__kind=kind.STAKE)),
            payouts=Sum("amount", filter=Q(transaction__kind=kind.PAYOUT)),
            refunds=Sum("amount", filter=Q(transaction__kind=kind.REFUND)),
            other=Sum("amount", filter=~Q(transaction__kind__in=[kind.STAKE, kind.PAYOUT, kind.REFUND])),
            net=Sum("amount"),
        )
        .order_by("wallet_id", "day")
    )
    openings = dict(
        LedgerEntry.objects.filter(wallet_id__in={r["wallet_id"] for r in rows}, transaction__created_at__lt=start)
        .values("wallet_id")
        .annotate(total=Sum("amount"))
        .order_by()
        .values_list("wallet_id", "total")
    )
    out: list[PlayerDay] = []
    balance: dict[int, Decimal] = {}
    for r in rows:  # by wallet, then day: each day opens where the previous one closed
        wallet = r["wallet_id"]
        opening = balance.get(wallet, cents(openings.get(wallet)))
        out.append(
            PlayerDay(
                day=r["day"],
                wallet_id=wallet,
                username=r["wallet__user__username"],
                opening=opening,
                stakes=-cents(r["stakes"]),
                payouts=cents(r["payouts"]),
                refunds=cents(r["refunds"]),
                other=cents(r["other"]),
            )
        )
        balance[wallet] = opening + cents(r["net"])
    return sorted(out, key=lambda p: (p.day, p.username, p.wallet_id))


# ── the live floor ──────────────────────────────────────────────────────────


@dataclass
class FloorTable:
    table: Table
    round: Round | None
    players: int = 0
    #: [(bet type, stakes)] in the casino's order, refunded bets left out
    stakes: list[tuple[str, Decimal]] = field(default_factory=list)
    open_stakes: Decimal = ZERO
    exposure: Exposure | None = None
    ggr_today: Decimal = ZERO
    seconds_to_close: float | None = None

    @property
    def live(self) -> bool:
        return self.round is not None and self.round.state in LIVE_ROUND_STATES


def live_floor(*, now: datetime | None = None) -> list[FloorTable]:
    """Every table but the retired ones, with its current round (the live one, else the last), that round's
    players and stakes per bet type, the worst-case exposure of its open bets and the table's GGR today (UTC).
    Five queries."""
    now = now or timezone.now()
    tables = list(Table.objects.select_related("variant").exclude(status=Table.Status.RETIRED).order_by("id"))
    latest = {
        r.table_id: r
        for r in Round.objects.filter(table__in=tables)
        .select_related("shoe")
        .order_by("table_id", "-id")
        .distinct("table_id")
    }
    round_ids = [r.pk for r in latest.values()]
    live_bets = Bet.objects.filter(round_id__in=round_ids).exclude(outcome__status=Bet.Status.REFUNDED)
    stakes: dict[int, dict[str, Decimal]] = defaultdict(dict)
    open_bets: dict[int, list[tuple[str, str, Decimal, int]]] = defaultdict(list)
    per_stake = live_bets.values("round_id", "type", "mode", "amount", status=F("outcome__status"))
    for row in per_stake.annotate(n=Count("id")).order_by():
        per_type = stakes[row["round_id"]]
        per_type[row["type"]] = per_type.get(row["type"], ZERO) + row["amount"] * row["n"]
        if row["status"] is None:  # no outcome yet: open
            open_bets[row["round_id"]].append((row["type"], row["mode"], row["amount"], row["n"]))
    players = dict(
        live_bets.values("round_id").annotate(n=Count("user_id", distinct=True)).order_by().values_list("round_id", "n")
    )
    start = day_start(utc_today(now))
    ggr = ggr_by_table(start, start + timedelta(days=1))
    order = {t: i for i, t in enumerate(BET_TYPES)}
    out = []
    for table in tables:
        round_ = latest.get(table.pk)
        floor_row = FloorTable(table=table, round=round_, ggr_today=ggr.get(table.pk, ZERO))
        if round_ is not None:
            round_.table = table  # the variant is already loaded
            per_type = stakes.get(round_.pk, {})
            floor_row.stakes = sorted(((t, cents(a)) for t, a in per_type.items()), key=lambda s: order.get(s[0], 99))
            floor_row.players = players.get(round_.pk, 0)
            bets = open_bets.get(round_.pk, [])
            floor_row.open_stakes = cents(sum((a * n for _t, _m, a, n in bets), ZERO))
            if round_.state in LIVE_ROUND_STATES:
                floor_row.exposure = round_exposure(round_, bets)
            if round_.state == Round.State.BETTING:
                floor_row.seconds_to_close = max(0.0, (round_.closes_at - now).total_seconds())
        out.append(floor_row)
    return out
