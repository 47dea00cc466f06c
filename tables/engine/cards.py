"""Cards: ranks, suits, baccarat point values, and the two-character card codes ("5H", "TD")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class Rank(StrEnum):
    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"


class Suit(StrEnum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


#: Ranks and suits in the canonical order a fresh deck is laid out in (see docs/provably-fair.md).
RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)

RANK_POINTS: dict[Rank, int] = {
    Rank.ACE: 1,
    Rank.TWO: 2,
    Rank.THREE: 3,
    Rank.FOUR: 4,
    Rank.FIVE: 5,
    Rank.SIX: 6,
    Rank.SEVEN: 7,
    Rank.EIGHT: 8,
    Rank.NINE: 9,
    Rank.TEN: 0,
    Rank.JACK: 0,
    Rank.QUEEN: 0,
    Rank.KING: 0,
}


@dataclass(frozen=True, slots=True, repr=False)
class Card:
    """One playing card. ``str(card)`` is its code, rank then suit: ``"5H"``, ``"TD"``, ``"AS"``."""

    rank: Rank
    suit: Suit
    #: Baccarat points (0–9), derived from the rank.
    value: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank", Rank(self.rank))
        object.__setattr__(self, "suit", Suit(self.suit))
        object.__setattr__(self, "value", RANK_POINTS[self.rank])

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card for a code such as ``"5H"`` (case-insensitive; ``"10H"`` is accepted for ``"TH"``)."""
        try:
            return _BY_CODE[code.strip().upper().replace("10", "T", 1)]
        except (KeyError, AttributeError):
            raise ValueError(f"not a card code: {code!r} (rank A23456789TJQK then suit SHDC)") from None


_BY_CODE: dict[str, Card] = {f"{r.value}{s.value}": Card(r, s) for s in SUITS for r in RANKS}


def parse_cards(text: str) -> list[Card]:
    """Cards from whitespace- or comma-separated codes: ``parse_cards("5H KD 3C")``."""
    return [Card.parse(code) for code in text.replace(",", " ").split()]


def as_card(card: Card | str) -> Card:
    """A card given either as a Card or as its code."""
    return card if isinstance(card, Card) else Card.parse(card)


def fresh_order(decks: int) -> list[Card]:
    """The canonical unshuffled shoe: deck after deck, each in suit order S H D C, each suit A 2 … K."""
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")
    one_deck = [_BY_CODE[f"{r.value}{s.value}"] for s in SUITS for r in RANKS]
    return one_deck * decks


def codes(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]
