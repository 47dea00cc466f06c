"""What the rules pages show: the game's terms at a table (or the house defaults) and every bet's exact odds.

The odds come from the engine (``tables.engine.odds``) and depend only on the deck count and the paytable,
so they are computed once per (decks, paytable) in each process and kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from baccarat_site.money import CENT, display
from tables.engine import (
    BET_TYPES,
    DEFAULT_PAYTABLE,
    DEFAULT_UNAVAILABLE_AFTER,
    Limits,
    Paytable,
    bet_distributions,
    house_edge_text,
    odds_label,
    payout_label,
    rtp_text,
)
from tables.engine.limits import PB_SIDES
from tables.labels import BET_NAMES, MODE_NAMES, TABLE_STATUS_NAMES, label
from tables.models import Table, Variant, default_limits
from tables.selectors.tables import current_decks, table_decks

#: The deck count the general rules page prices its odds for.
DEFAULT_DECKS = 8
#: The odds rows in the order the page lists them: Banker in both modes sits next to Player.
ODDS_ROWS: tuple[tuple[str, str], ...] = (
    ("player", "traditional"),
    ("banker", "traditional"),
    ("banker", "no_commission"),
    *((bet_type, "traditional") for bet_type in BET_TYPES[2:]),
)
_HUNDRED = Decimal(100)


@dataclass(frozen=True)
class BetOdds:
    """One bet's exact chances per unit staked: winning, a push, the house edge and the return to player."""

    win: Fraction
    push: Fraction
    house_edge: Fraction

    @property
    def rtp(self) -> Fraction:
        return 1 - self.house_edge


def percent(value: Fraction) -> str:
    """A probability as a percentage with two decimals and a dot in every language: 0.010579… → "1.06%"."""
    scaled = Decimal(value.numerator) * _HUNDRED / Decimal(value.denominator)
    return f"{scaled.quantize(CENT, rounding=ROUND_HALF_UP)}%"


@lru_cache(maxsize=32)
def bet_odds(decks: int, paytable: Paytable) -> dict[str, BetOdds]:
    """Every bet's odds for a fresh shoe of ``decks`` and ``paytable``; keys as ``house_edges`` (BET_TYPES
    plus "banker_no_commission"). Pure, so kept per (decks, paytable)."""
    odds: dict[str, BetOdds] = {}
    for name, distribution in bet_distributions(decks, paytable).items():
        ev = sum((net * p for net, p in distribution.items()), Fraction(0))
        odds[name] = BetOdds(
            win=sum((p for net, p in distribution.items() if net > 0), Fraction(0)),
            push=distribution.get(Fraction(0), Fraction(0)),
            house_edge=-ev,
        )
    return odds


def _odds_rows(decks: int, paytable: Paytable, offered: set[str]) -> list[dict[str, Any]]:
    odds = bet_odds(decks, paytable)
    rows = []
    for bet_type, mode in ODDS_ROWS:
        if bet_type not in offered:
            continue
        key = "banker_no_commission" if mode == "no_commission" else bet_type
        bet = odds[key]
        rows.append(
            {
                "type": bet_type,
                "mode": mode,
                "name": BET_NAMES[bet_type],
                "mode_name": MODE_NAMES[mode] if bet_type == "banker" else "",
                "pays": payout_label(bet_type, paytable, mode),
                "win": percent(bet.win),
                # A push only where a bet can push (Player, Banker, the Bonus bets on a natural tie).
                "push": percent(bet.push) if bet.push else "",
                # The return truncated, the edge its complement (tables.engine.display): never a flattering figure.
                "house_edge": house_edge_text(bet.house_edge),
                "rtp": rtp_text(bet.house_edge),
            }
        )
    return rows


def _paytable_rows(paytable: Paytable, limits: Limits) -> list[dict[str, Any]]:
    rows = []
    for bet_type in BET_TYPES:
        low_high = limits.per_type.get(bet_type)
        if low_high is None:
            continue
        low, high = low_high
        if bet_type in PB_SIDES and limits.pb_difference is not None:
            high = limits.pb_difference  # the difference limit is the binding maximum of both sides
        rows.append(
            {
                "type": bet_type,
                "name": BET_NAMES[bet_type],
                "traditional": payout_label(bet_type, paytable, "traditional"),
                "no_commission": payout_label(bet_type, paytable, "no_commission"),
                # Only Banker is paid differently in the two modes.
                "by_mode": bet_type == "banker",
                "min": display(low),
                "max": display(high),
                "last_round": limits.unavailable_after.get(bet_type),
            }
        )
    return rows


def _terms(paytable: Paytable) -> dict[str, str]:
    """The paytable's entries the rules text quotes, as casino labels ("0.95:1", "1:2", "7:2")."""
    return {
        "player": odds_label(paytable.player),
        "banker": odds_label(paytable.banker),
        "commission": f"{(1 - paytable.banker) * 100:.0f}%" if paytable.banker < 1 else "",
        "banker_nc": odds_label(paytable.banker_no_commission),
        "banker_nc_six": odds_label(paytable.banker_no_commission_six),
        "tie": odds_label(paytable.tie),
        "player_pair": odds_label(paytable.player_pair),
        "banker_pair": odds_label(paytable.banker_pair),
        "any_pair": odds_label(paytable.any_pair),
        "perfect_pair": odds_label(paytable.perfect_pair),
        "player_natural": odds_label(paytable.player_natural),
        "banker_natural": odds_label(paytable.banker_natural),
        "bonus_natural": odds_label(paytable.bonus_natural),
        "lucky_six_two_cards": odds_label(paytable.lucky_six_two_cards),
        "lucky_six_three_cards": odds_label(paytable.lucky_six_three_cards),
        "lucky_six_2": odds_label(paytable.lucky_six_2),
        "lucky_six_3": odds_label(paytable.lucky_six_3),
    }


def _page(*, decks: int, paytable: Paytable, limits: Limits) -> dict[str, Any]:
    offered = set(limits.per_type)
    cutoffs = sorted(
        {last for bet_type, last in limits.unavailable_after.items() if bet_type in offered and last is not None}
    )
    pb = limits.pb_difference
    example = None
    if pb is not None and pb > 0 and {"player", "banker"} <= offered:
        example = {"limit": display(pb), "player": display(pb), "banker": display(pb * 2)}
    return {
        "decks": decks,
        "terms": _terms(paytable),
        "bonus_margins": [
            {"margin": m, "pays": odds_label(o)} for m, o in sorted(paytable.bonus_margins, reverse=True)
        ],
        "odds_rows": _odds_rows(decks, paytable, offered),
        "paytable_rows": _paytable_rows(paytable, limits),
        "offered": offered,
        "cutoffs": cutoffs,
        "cutoff_example": {"last": cutoffs[0], "next": cutoffs[0] + 1} if cutoffs else None,
        "pb_example": example,
        "pb_limit": None if pb is None else display(pb),
    }


def rules_general() -> dict[str, Any]:
    """The house rules: a new variant's terms (the default paytable on 8 decks, every bet with its default
    limits and cut-offs, the default difference limit), and every table with a link to its own terms."""
    per_type = {t: (Decimal(v["min"]), Decimal(v["max"])) for t, v in default_limits().items()}
    pb_default = Variant._meta.get_field("pb_difference_limit").default
    limits = Limits(per_type=per_type, pb_difference=pb_default, unavailable_after=DEFAULT_UNAVAILABLE_AFTER)
    page = _page(decks=DEFAULT_DECKS, paytable=DEFAULT_PAYTABLE, limits=limits)
    page["table"] = None
    tables = list(Table.objects.select_related("variant").exclude(status=Table.Status.RETIRED).order_by("id"))
    decks = current_decks(tables)  # each table's current shoe (a variant's new deck count waits for the next)
    page["tables"] = [
        {
            "id": t.pk,
            "name": t.name,
            "variant": t.variant.name,
            "decks": decks[t.pk],
            "status": t.status,
            "status_name": label(TABLE_STATUS_NAMES, t.status),
        }
        for t in tables
    ]
    return page


def rules_for_table(table_id: int) -> dict[str, Any] | None:
    """A table's rules: its own paytable, limits, cut-offs, deck count and betting window, with the exact odds
    of the bets it offers. None if there is no such table."""
    table = (
        Table.objects.select_related("variant")
        .prefetch_related("variant__bets", "limits")
        .exclude(status=Table.Status.RETIRED)
        .filter(pk=table_id)
        .first()
    )
    if table is None:
        return None
    variant = table.variant
    # The odds of the shoe being dealt now: a variant switched to another deck count changes the next shoe. The
    # terms are what the table's next round opens with (a variant's edit shows at once): only the bets this
    # shoe's decks can pay (no Perfect Pair from a one-deck shoe, whatever the variant says now).
    decks = table_decks(table)
    terms = table.terms(decks=decks)
    page = _page(decks=decks, paytable=Paytable.from_dict(terms["paytable"]), limits=Limits.from_dict(terms["limits"]))
    page["table"] = {
        "id": table.pk,
        "name": table.name,
        "variant": variant.name,
        "betting_seconds": table.betting_seconds,
        "status": table.status,
    }
    page["tables"] = []
    return page
