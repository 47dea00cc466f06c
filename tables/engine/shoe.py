"""The shoe procedure: shuffle, burn, cut card, dealing, and the last round (docs/rules.md "The shoe").

A ShoeState is plain data (``to_dict``/``from_dict`` round-trip through JSON), so the services persist it
after every card and resume exactly where they were.

Cut card: ``cut_index`` is the index of the first card *behind* the cut card. The cut card comes out when
that card is drawn, and the round in progress is then the last of the shoe; it is completed with the cards
behind the cut. A round takes at most 6 cards and at least one of them is the card at ``cut_index``, so at
least 6 cards behind the cut guarantee the last round always completes. The range of cards behind the cut
is therefore clamped to ``[6, cards − 11 − 6]`` (11 = the largest burn, a 10-point card plus 10 more; then
room for one full round before the cut), which for one deck is [6, 35] and leaves the default 14–26 as is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .cards import Card, as_card
from .fair import ALGORITHM, cards_behind_cut, commitment, new_server_seed, shuffled_cards
from .tableau import RoundResult, deal_round

DEFAULT_CUT_RANGE = (14, 26)
MAX_ROUND_CARDS = 6
MAX_BURN_CARDS = 11
MIN_BEHIND_CUT = MAX_ROUND_CARDS


class ShoeExhausted(IndexError):
    """A card was drawn from an empty shoe (the clamped cut range makes this impossible mid-round)."""


def burn_count_for(card: Card) -> int:
    """Cards burned face down after the shown burn card: its points, except that a 10 or a face card burns 10."""
    return card.value or 10


def clamp_cut_range(total_cards: int, cut_range: tuple[int, int]) -> tuple[int, int]:
    """The cut range (cards behind the cut card) made safe for a shoe of ``total_cards``."""
    low, high = cut_range
    if low > high or low < 0:
        raise ValueError(f"a cut range is (fewest, most) cards behind the cut card, not {cut_range!r}")
    cap = total_cards - MAX_BURN_CARDS - MAX_ROUND_CARDS
    return (min(max(low, MIN_BEHIND_CUT), cap), min(max(high, MIN_BEHIND_CUT), cap))


@dataclass
class ShoeState:
    decks: int
    seed: str
    commitment: str
    cards: list[Card]
    position: int
    burn_card: str
    burn_count: int
    cut_index: int
    round_number: int = 0
    cut_card_out: bool = False
    algorithm: str = ALGORITHM

    @property
    def is_last_round(self) -> bool:
        """The cut card has come out: the round in progress (if any) is the shoe's last; open no other."""
        return self.cut_card_out

    @property
    def cards_left(self) -> int:
        return len(self.cards) - self.position

    @property
    def ready(self) -> bool:
        """Rounds may be dealt: a server shoe is burned as it is shuffled (a live one waits for its dealer)."""
        return True

    @property
    def cards_behind_cut(self) -> int:
        return len(self.cards) - self.cut_index

    def draw(self) -> Card:
        """The next card; drawing the card behind the cut card brings the cut card out."""
        if self.position >= len(self.cards):
            raise ShoeExhausted("the shoe is empty")
        card = self.cards[self.position]
        if self.position >= self.cut_index:
            self.cut_card_out = True
        self.position += 1
        return card

    def __iter__(self) -> Iterator[Card]:
        while self.position < len(self.cards):
            yield self.draw()

    def deal_round(self) -> RoundResult:
        """Start the next round (round_number + 1) and deal it from the shoe."""
        if self.cut_card_out:
            raise ValueError("the cut card is out: the shoe is finished, shuffle a new one")
        self.round_number += 1
        return deal_round(self._drawer())

    def _drawer(self) -> Iterator[Card]:
        while True:
            yield self.draw()

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "decks": self.decks,
            "seed": self.seed,
            "commitment": self.commitment,
            "cards": [str(c) for c in self.cards],
            "position": self.position,
            "burn_card": self.burn_card,
            "burn_count": self.burn_count,
            "cut_index": self.cut_index,
            "round_number": self.round_number,
            "cut_card_out": self.cut_card_out,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShoeState:
        cards = data.get("cards")
        # A state may leave out the order: it is then regenerated from the seed.
        order = shuffled_cards(str(data["seed"]), int(data["decks"])) if cards is None else [as_card(c) for c in cards]
        state = cls(
            decks=int(data["decks"]),
            seed=str(data["seed"]),
            commitment=str(data["commitment"]),
            cards=order,
            position=int(data["position"]),
            burn_card=str(data["burn_card"]),
            burn_count=int(data["burn_count"]),
            cut_index=int(data["cut_index"]),
            round_number=int(data.get("round_number", 0)),
            cut_card_out=bool(data.get("cut_card_out", False)),
            algorithm=str(data.get("algorithm", ALGORITHM)),
        )
        if len(state.cards) != 52 * state.decks or not 0 <= state.position <= len(state.cards):
            raise ValueError("inconsistent shoe state")
        return state


def new_shoe(
    decks: int,
    seed_hex: str | None = None,
    cut_range: tuple[int, int] = DEFAULT_CUT_RANGE,
    rng: Callable[[int], bytes] | None = None,
) -> ShoeState:
    """Shuffle a shoe from ``seed_hex`` (a fresh one from ``rng`` if None), burn, and place the cut card."""
    seed = seed_hex if seed_hex is not None else new_server_seed(rng)
    order = shuffled_cards(seed, decks)
    low, high = clamp_cut_range(len(order), (int(cut_range[0]), int(cut_range[1])))
    behind = cards_behind_cut(seed, low, high)
    state = ShoeState(
        decks=decks,
        seed=seed,
        commitment=commitment(seed),
        cards=order,
        position=0,
        burn_card="",
        burn_count=0,
        cut_index=len(order) - behind,
    )
    burn = state.draw()
    state.burn_card = str(burn)
    state.burn_count = burn_count_for(burn)
    for _ in range(state.burn_count):
        state.draw()
    return state
