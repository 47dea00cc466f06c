"""Bet types and betting modes shared by the payout, limit and odds modules (money: ``baccarat_site.money``)."""

from __future__ import annotations

from typing import Final

#: Every bet type, in the order the casino lists them (docs/rules.md appendix).
BET_TYPES: Final[tuple[str, ...]] = (
    "player",
    "banker",
    "tie",
    "player_pair",
    "banker_pair",
    "any_pair",
    "perfect_pair",
    "player_natural",
    "banker_natural",
    "player_bonus",
    "banker_bonus",
    "lucky_six",
    "lucky_six_2",
    "lucky_six_3",
)

#: Betting modes; the mode only changes how a Banker bet is paid.
MODES: Final[tuple[str, ...]] = ("traditional", "no_commission")


def check_bet_type(bet_type: str) -> str:
    if bet_type not in BET_TYPES:
        raise ValueError(f"unknown bet type: {bet_type!r}")
    return bet_type


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown betting mode: {mode!r} (one of {', '.join(MODES)})")
    return mode
