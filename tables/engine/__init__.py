"""The Baccarat (Punto Banco) rules engine: plain Python, no Django.

Cards and dealing (``cards``, ``tableau``), payouts (``payouts``), limits (``limits``), the provably fair
shoe (``fair``, ``shoe``), exact odds (``odds``) and scoreboard roads (``roads``). docs/rules.md is the spec.
"""

from .bets import BET_TYPES, MODES
from .cards import RANKS, SUITS, Card, Rank, Suit, parse_cards
from .display import chip_denominations, house_edge_text, odds_label, payout_label, payout_labels, rtp_text
from .fair import ALGORITHM, commitment, new_server_seed, shuffled_cards, verify_dealt, verify_shoe
from .limits import DEFAULT_UNAVAILABLE_AFTER, BetViolation, Limits, bet_available, validate_bets
from .live import CardRefused, LiveShoeState, new_live_shoe, shoe_state
from .odds import bet_distributions, expected_returns, house_edges, outcome_probabilities
from .payouts import (
    DEFAULT_PAYTABLE,
    Facts,
    Paytable,
    bet_outcome,
    bet_return,
    facts_of,
    outcome_marks,
    round_outcomes,
    settle,
    settle_outcome,
)
from .roads import roads
from .shoe import DEFAULT_CUT_RANGE, ShoeExhausted, ShoeState, burn_count_for, new_shoe
from .simulation import SIM_BETS, bet_stats, settlement_table, simulate
from .tableau import NotEnoughCards, RoundResult, banker_draws, deal_round, hand_total, next_hand, player_draws

__all__ = [
    "ALGORITHM",
    "BET_TYPES",
    "DEFAULT_CUT_RANGE",
    "DEFAULT_PAYTABLE",
    "DEFAULT_UNAVAILABLE_AFTER",
    "MODES",
    "RANKS",
    "SIM_BETS",
    "SUITS",
    "BetViolation",
    "Card",
    "CardRefused",
    "Facts",
    "Limits",
    "LiveShoeState",
    "NotEnoughCards",
    "Paytable",
    "Rank",
    "RoundResult",
    "ShoeExhausted",
    "ShoeState",
    "Suit",
    "banker_draws",
    "bet_available",
    "bet_distributions",
    "bet_outcome",
    "bet_return",
    "bet_stats",
    "burn_count_for",
    "chip_denominations",
    "commitment",
    "deal_round",
    "expected_returns",
    "facts_of",
    "hand_total",
    "house_edge_text",
    "house_edges",
    "new_live_shoe",
    "new_server_seed",
    "new_shoe",
    "next_hand",
    "odds_label",
    "outcome_marks",
    "outcome_probabilities",
    "parse_cards",
    "payout_label",
    "payout_labels",
    "player_draws",
    "roads",
    "round_outcomes",
    "rtp_text",
    "settle",
    "settle_outcome",
    "settlement_table",
    "shoe_state",
    "shuffled_cards",
    "simulate",
    "validate_bets",
    "verify_dealt",
    "verify_shoe",
]
