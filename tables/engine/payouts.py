"""Paytables and settlement: what each bet returns for a finished round (docs/rules.md "Bet types and payouts").

Odds ``x`` mean "x:1": a winning bet returns the stake plus ``x × stake``, the winnings rounded **down** to
the cent. A push returns the stake; a loss returns 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, NamedTuple

from baccarat_site.money import ZERO, cents_down, to_amount

from .bets import BET_TYPES, MODES, check_bet_type, check_mode
from .tableau import RoundResult, Winner

Outcome = Literal["won", "lost", "push"]

_DEFAULT_BONUS_MARGINS: tuple[tuple[int, Decimal], ...] = (
    (4, Decimal(1)),
    (5, Decimal(2)),
    (6, Decimal(4)),
    (7, Decimal(6)),
    (8, Decimal(10)),
    (9, Decimal(30)),
)


@dataclass(frozen=True)
class Paytable:
    """The odds (x:1) each bet pays. Defaults are docs/rules.md's paytable; every field is a variant setting."""

    player: Decimal = Decimal(1)
    banker: Decimal = Decimal("0.95")  # Traditional mode: 5% commission
    banker_no_commission: Decimal = Decimal(1)  # No-Commission mode, any win but a 6
    banker_no_commission_six: Decimal = Decimal("0.5")  # No-Commission mode, Banker wins with 6: 1:2
    tie: Decimal = Decimal(8)  # some casinos: 9
    player_pair: Decimal = Decimal(11)
    banker_pair: Decimal = Decimal(11)
    any_pair: Decimal = Decimal(5)
    perfect_pair: Decimal = Decimal(25)
    player_natural: Decimal = Decimal("3.5")  # 7:2
    banker_natural: Decimal = Decimal("3.5")
    bonus_natural: Decimal = Decimal(1)  # Player/Banker Bonus: win with a natural
    #: Player/Banker Bonus: non-natural win by a margin -> odds; margins not listed lose.
    bonus_margins: tuple[tuple[int, Decimal], ...] = field(default=_DEFAULT_BONUS_MARGINS)
    lucky_six_two_cards: Decimal = Decimal(12)  # Lucky Six, Banker wins with 6 on two cards
    lucky_six_three_cards: Decimal = Decimal(20)  # Lucky Six, Banker wins with 6 on three cards
    lucky_six_2: Decimal = Decimal(22)  # 2-Card Lucky Six
    lucky_six_3: Decimal = Decimal(50)  # 3-Card Lucky Six

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name == "bonus_margins":
                continue
            value = getattr(self, f.name)
            object.__setattr__(self, f.name, _odds(value, f.name))
        margins = self.bonus_margins
        if isinstance(margins, Mapping):
            margins = tuple(margins.items())
        cleaned: dict[int, Decimal] = {}
        for margin, odds in margins:
            m = int(margin)
            if not 1 <= m <= 9:
                raise ValueError(f"a bonus margin is 1 to 9, not {margin!r}")
            cleaned[m] = _odds(odds, f"bonus_margins[{m}]")
        object.__setattr__(self, "bonus_margins", tuple(sorted(cleaned.items())))

    def bonus_margin_odds(self, margin: int) -> Decimal | None:
        for m, odds in self.bonus_margins:
            if m == margin:
                return odds
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: odds as strings, bonus margins as ``{"4": "1", …}``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "bonus_margins":
                out[f.name] = {str(m): str(o) for m, o in self.bonus_margins}
            else:
                out[f.name] = str(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Paytable:
        """The inverse of to_dict; keys left out keep their defaults, unknown keys are an error."""
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown paytable keys: {', '.join(sorted(unknown))}")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key == "bonus_margins":
                items = value.items() if isinstance(value, Mapping) else value
                kwargs[key] = tuple((int(m), o) for m, o in items)
            else:
                kwargs[key] = value
        return cls(**kwargs)


def _odds(value: object, name: str) -> Decimal:
    try:
        if isinstance(value, bool):
            raise InvalidOperation
        odds = value if isinstance(value, Decimal) else Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise ValueError(f"paytable {name}: not a number: {value!r}") from None
    if not odds.is_finite() or odds < 0:
        raise ValueError(f"paytable {name}: odds must be a finite number ≥ 0, not {value!r}")
    return odds


DEFAULT_PAYTABLE = Paytable()


class Facts(NamedTuple):
    """What settlement looks at in a round; RoundResult.facts() and the odds calculator both produce it."""

    winner: Winner
    player_total: int
    banker_total: int
    player_natural: bool
    banker_natural: bool
    banker_card_count: int
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool


def facts_of(result: RoundResult) -> Facts:
    return Facts(
        result.winner,
        result.player_total,
        result.banker_total,
        result.player_natural,
        result.banker_natural,
        len(result.banker_cards),
        result.player_pair,
        result.banker_pair,
        result.player_perfect_pair,
        result.banker_perfect_pair,
    )


_LOST: tuple[Outcome, Decimal] = ("lost", Decimal(0))
_PUSH: tuple[Outcome, Decimal] = ("push", Decimal(0))


def bet_outcome(bet_type: str, facts: Facts, mode: str, paytable: Paytable) -> tuple[Outcome, Decimal]:
    """("won", odds) / ("push", 0) / ("lost", 0) for one bet type on one round. The single source of truth."""
    pt = paytable
    f = facts
    if bet_type == "player":
        if f.winner == "tie":
            return _PUSH
        return ("won", pt.player) if f.winner == "player" else _LOST
    if bet_type == "banker":
        if f.winner == "tie":
            return _PUSH
        if f.winner != "banker":
            return _LOST
        if mode == "no_commission":
            return ("won", pt.banker_no_commission_six if f.banker_total == 6 else pt.banker_no_commission)
        return ("won", pt.banker)
    if bet_type == "tie":
        return ("won", pt.tie) if f.winner == "tie" else _LOST
    if bet_type == "player_pair":
        return ("won", pt.player_pair) if f.player_pair else _LOST
    if bet_type == "banker_pair":
        return ("won", pt.banker_pair) if f.banker_pair else _LOST
    if bet_type == "any_pair":
        return ("won", pt.any_pair) if f.player_pair or f.banker_pair else _LOST
    if bet_type == "perfect_pair":
        return ("won", pt.perfect_pair) if f.player_perfect_pair or f.banker_perfect_pair else _LOST
    if bet_type == "player_natural":
        return ("won", pt.player_natural) if f.player_natural else _LOST
    if bet_type == "banker_natural":
        return ("won", pt.banker_natural) if f.banker_natural else _LOST
    if bet_type in ("player_bonus", "banker_bonus"):
        side = "player" if bet_type == "player_bonus" else "banker"
        natural = f.player_natural if side == "player" else f.banker_natural
        if f.winner == "tie":
            # A tie with a natural is a tie of two naturals (nobody draws): push. Any other tie loses.
            return _PUSH if (f.player_natural or f.banker_natural) else _LOST
        if f.winner != side:
            return _LOST
        if natural:
            return ("won", pt.bonus_natural)
        odds = pt.bonus_margin_odds(abs(f.player_total - f.banker_total))
        return ("won", odds) if odds is not None else _LOST
    if bet_type in ("lucky_six", "lucky_six_2", "lucky_six_3"):
        if f.winner != "banker" or f.banker_total != 6:
            return _LOST
        two = f.banker_card_count == 2
        if bet_type == "lucky_six":
            return ("won", pt.lucky_six_two_cards if two else pt.lucky_six_three_cards)
        if bet_type == "lucky_six_2":
            return ("won", pt.lucky_six_2) if two else _LOST
        return ("won", pt.lucky_six_3) if not two else _LOST
    check_bet_type(bet_type)
    raise AssertionError(bet_type)  # pragma: no cover - every bet type is handled above


def bet_return(amount: Decimal, status: str, odds: Decimal) -> Decimal:
    """What a bet of ``amount`` gets back when its kind came to ``status`` at ``odds`` (x:1): on a win the
    stake plus ``odds × amount`` rounded down to the cent; the stake on a push or a refund; 0 on a loss.

    The payout rule, once in Python; ``tables.selectors.outcomes.bet_payout`` is the same rule in SQL (a
    property test holds them equal).
    """
    if status == "won":
        return amount + cents_down(amount * odds)
    if status in ("push", "refunded"):
        return amount
    if status == "lost":
        return ZERO
    raise ValueError(f"no return for a bet that is {status!r}")


def round_outcomes(
    facts: Facts, paytable: Paytable = DEFAULT_PAYTABLE
) -> dict[str, dict[str, tuple[Outcome, Decimal]]]:
    """Every bet type in every mode on one round: ``{type: {mode: (outcome, odds)}}``, from ``bet_outcome`` (so
    what a page marks as won, pushed or lost is what settlement pays). The table page marks its spots from it."""
    return {bet_type: {mode: bet_outcome(bet_type, facts, mode, paytable) for mode in MODES} for bet_type in BET_TYPES}


def outcome_marks(facts: Facts, paytable: Paytable = DEFAULT_PAYTABLE) -> dict[str, dict[str, Outcome]]:
    """``round_outcomes`` without the odds, as the ``outcomes`` of ``round.result`` and the snapshot carry it:
    ``{type: {"traditional": "won" | "lost" | "push", "no_commission": …}}``."""
    return {
        bet_type: {mode: outcome for mode, (outcome, _odds) in by_mode.items()}
        for bet_type, by_mode in round_outcomes(facts, paytable).items()
    }


def settle_facts(
    bet_type: str,
    stake: Decimal,
    facts: Facts,
    mode: str = "traditional",
    paytable: Paytable = DEFAULT_PAYTABLE,
) -> tuple[Outcome, Decimal]:
    """settle_outcome() for a round given by its Facts (what settlement looks at)."""
    check_bet_type(bet_type)
    check_mode(mode)
    amount = to_amount(stake)
    if amount is None or amount <= 0:
        raise ValueError(f"a stake is a positive amount with at most two decimals, not {stake!r}")
    outcome, odds = bet_outcome(bet_type, facts, mode, paytable)
    return outcome, bet_return(amount, outcome, odds)


def settle_outcome(
    bet_type: str,
    stake: Decimal,
    result: RoundResult,
    mode: str = "traditional",
    paytable: Paytable = DEFAULT_PAYTABLE,
) -> tuple[Outcome, Decimal]:
    """("won" | "lost" | "push", what the player gets back), the winnings rounded down to the cent."""
    return settle_facts(bet_type, stake, facts_of(result), mode, paytable)


def settle(
    bet_type: str,
    stake: Decimal,
    result: RoundResult,
    mode: str = "traditional",
    paytable: Paytable = DEFAULT_PAYTABLE,
) -> Decimal:
    """What the player gets back: stake + winnings on a win, the stake on a push, 0 on a loss."""
    return settle_outcome(bet_type, stake, result, mode, paytable)[1]
