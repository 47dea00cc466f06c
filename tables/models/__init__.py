"""Tables, variants, shoes, rounds and bets, one module per idea.

The rules live in ``tables.engine`` (plain Python); these rows persist what
the engine decides. Round transitions are compare-and-set updates in
``tables.services.transitions`` (stepped by ``tables.services.ticker``, operated by
``tables.services.controls``); bets in ``tables.services.placement``; their money in
``tables.services.settlement`` and ``wallets.services``.

* :mod:`tables.models.variants`: ``Variant`` (decks, cut card, paytable) and ``VariantBet`` (the bets it offers).
* :mod:`tables.models.tables`: ``Table`` (status, pace, hours, live dealing) and ``TableLimit`` (narrower limits).
* :mod:`tables.models.rounds`: ``Shoe`` and ``Round``, what a table dealt.
* :mod:`tables.models.bets`: ``BetPlacement``, ``Bet`` and ``BetOutcome``, what players staked and got back.
* :mod:`tables.models.floor`: ``RiskAlert`` and ``SupervisorCall``, what the floor's staff look at.
* :mod:`tables.models.chat`: ``ChatMessage`` and ``ChatMute``.

Import from here (``from tables.models import Round``); every model keeps the app label ``tables``, so the
package changed no table, migration or admin URL.
"""

# In the order the models were defined before they were split (variants first, chat last), which is the order
# the app registry lists them in and so the order a new database creates their content types and permissions.
# isort: off
from tables.models.variants import (
    BONUS_MARGINS,
    LARGEST_STAKE,
    PAYTABLE_FIELDS,
    TIE_ODDS,
    Variant,
    VariantBet,
    as_stored,
    default_limits,
    default_paytable,
    default_unavailable_after,
)
from tables.models.tables import PACE, Table, TableLimit
from tables.models.rounds import Round, Shoe, decks_of_state, shoe_decks_sql
from tables.models.bets import OUTCOME_STATUSES, Bet, BetManager, BetMode, BetOutcome, BetPlacement, BetStatus
from tables.models.floor import RiskAlert, SupervisorCall
from tables.models.chat import ChatMessage, ChatMute
# isort: on

__all__ = [
    "BONUS_MARGINS",
    "LARGEST_STAKE",
    "OUTCOME_STATUSES",
    "PACE",
    "PAYTABLE_FIELDS",
    "TIE_ODDS",
    "Bet",
    "BetManager",
    "BetMode",
    "BetOutcome",
    "BetPlacement",
    "BetStatus",
    "ChatMessage",
    "ChatMute",
    "RiskAlert",
    "Round",
    "Shoe",
    "SupervisorCall",
    "Table",
    "TableLimit",
    "Variant",
    "VariantBet",
    "as_stored",
    "decks_of_state",
    "default_limits",
    "default_paytable",
    "default_unavailable_after",
    "shoe_decks_sql",
]
