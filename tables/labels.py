"""What players read for the game's codes: bet, mode, result, winner, table and round states, translated.

The API and the database keep the codes (``banker``, ``no_commission``, ``push``); every page shows these names.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import models
from django.utils.translation import gettext_lazy as _

from tables.engine import BET_TYPES


class BetType(models.TextChoices):
    """Every bet type (the engine's codes, in its order) with the name players read, translated: the one list
    the models' choices, the labels and the pages use."""

    PLAYER = "player", _("Player")
    BANKER = "banker", _("Banker")
    TIE = "tie", _("Tie")
    PLAYER_PAIR = "player_pair", _("Player Pair")
    BANKER_PAIR = "banker_pair", _("Banker Pair")
    ANY_PAIR = "any_pair", _("Any Pair")
    PERFECT_PAIR = "perfect_pair", _("Perfect Pair")
    PLAYER_NATURAL = "player_natural", _("Player Natural")
    BANKER_NATURAL = "banker_natural", _("Banker Natural")
    PLAYER_BONUS = "player_bonus", _("Player Bonus")
    BANKER_BONUS = "banker_bonus", _("Banker Bonus")
    LUCKY_SIX = "lucky_six", _("Lucky Six")
    LUCKY_SIX_2 = "lucky_six_2", _("2-Card Lucky Six")
    LUCKY_SIX_3 = "lucky_six_3", _("3-Card Lucky Six")


assert tuple(BetType.values) == BET_TYPES

#: Every bet's name as players read it, in the engine's order: :class:`BetType`'s labels by code.
BET_NAMES = dict(BetType.choices)

#: The two ways a table pays Banker.
MODE_NAMES = {
    "traditional": _("Traditional"),
    "no_commission": _("No commission"),
}

#: A bet's result (``Bet.status``).
RESULT_NAMES = {
    "open": _("Open"),
    "won": _("Won"),
    "lost": _("Lost"),
    "push": _("Push"),
    "refunded": _("Refunded"),
}

#: Which hand won a round (``Round.winner``).
WINNER_NAMES = {
    "player": _("Player"),
    "banker": _("Banker"),
    "tie": _("Tie"),
}

#: A table's status (``Table.status``).
TABLE_STATUS_NAMES = {
    "open": _("Open"),
    "paused": _("Paused"),
    "closed": _("Closed"),
    "retired": _("Retired"),
}

#: What players are told about a table's status (``status_notice``): fixed public messages, never an operator's
#: own words, which stay in the audit trail and the admin. ``%(opens_at)s`` is a UTC time such as 18:00.
STATUS_NOTICES = {
    "paused": _("Paused"),
    "supervisor": _("Paused: the supervisor is on the way"),
    "closing_after_round": _("Closing after this round"),
    "closing_after_shoe": _("Closing at the end of this shoe"),
    "closed": _("Closed"),
    "closed_until": _("Closed, opens at %(opens_at)s UTC"),
}

#: What players are told about a round that was paused or cancelled (never the operator's own words).
ROUND_NOTICES = {
    "paused": _("The round is paused."),
    "cancelled": _("The round was cancelled and every bet on it refunded."),
}

#: A round's state (``Round.state``), as the lobby and the record show it.
ROUND_STATE_NAMES = {
    "betting": _("Place your bets"),
    "closed": _("No more bets"),
    "dealing": _("Dealing"),
    "result": _("Result"),
    "settled": _("Settled"),
    "cancelled": _("Cancelled"),
    "paused": _("Paused"),
}


def label(names: Mapping[str, object], code: str | None) -> str:
    """The translated name of ``code``, or the code itself when it has none (never an empty cell)."""
    if not code:
        return ""
    return str(names.get(code, code))
