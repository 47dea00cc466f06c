"""A live dealer's physical shoe, scanned card by card (docs/rules.md "Live dealer tables"): the server does not
know the order, only what has been scanned, so it checks each scan against what a shoe of this many decks can
still hold and never guesses a card.

A :class:`LiveShoeState` is plain data (``to_dict``/``from_dict`` through JSON, ``"kind": "live"``), persisted on
the shoe after every scan like the server's :class:`~tables.engine.shoe.ShoeState`. The procedure:

1. a new shoe waits for its burn card (``scan_burn``): the console shows how many to burn (a 10 or a face card
   burns 10), the dealer burns them face down and confirms (``confirm_burn``); only then does a round open;
2. each card of a round is ``accept``-ed: refused (``CardRefused``) when the shoe cannot hold another copy of it
   or is empty; nothing changes then;
3. the dealer marks the cut card out (``cut_card_out``): the round in progress is the last of the shoe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .shoe import ShoeState, burn_count_for

KIND = "live"


class CardRefused(ValueError):
    """A scan the shoe cannot take; ``code`` says why (``card_impossible``, ``burn_pending``, ``burn_done``,
    ``shoe_empty``)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass
class LiveShoeState:
    decks: int
    #: How many copies of each card code the shoe has shown (the burn card and every dealt card).
    seen: dict[str, int] = field(default_factory=dict)
    #: Cards out of the shoe: the burn card, the cards burned face down once confirmed, every dealt card.
    position: int = 0
    burn_card: str = ""
    burn_count: int = 0
    burned: bool = False
    round_number: int = 0
    cut_card_out: bool = False

    @property
    def total_cards(self) -> int:
        return 52 * self.decks

    @property
    def cards_left(self) -> int:
        return self.total_cards - self.position

    @property
    def is_last_round(self) -> bool:
        """The dealer has marked the cut card out: the round in progress (if any) is the shoe's last."""
        return self.cut_card_out

    @property
    def ready(self) -> bool:
        """Burned: rounds may be dealt from this shoe."""
        return self.burned

    def _check(self, card: Card) -> None:
        if self.cards_left < 1:
            raise CardRefused("shoe_empty", "The shoe has no cards left: scan again or call the supervisor.")
        if self.seen.get(str(card), 0) >= self.decks:
            raise CardRefused(
                "card_impossible",
                f"A {self.decks}-deck shoe holds {self.decks} × {card}, and all of them have been dealt: scan again.",
            )

    def _take(self, card: Card) -> None:
        self.seen[str(card)] = self.seen.get(str(card), 0) + 1
        self.position += 1

    def scan_burn(self, card: Card) -> int:
        """The shown burn card of a new shoe; returns how many cards to burn face down after it."""
        if self.burn_card:
            raise CardRefused("burn_done", f"The burn card is {self.burn_card} already.")
        self._check(card)
        self._take(card)
        self.burn_card = str(card)
        self.burn_count = burn_count_for(card)
        return self.burn_count

    def confirm_burn(self) -> None:
        """The dealer has burned ``burn_count`` cards face down: the shoe is ready."""
        if not self.burn_card:
            raise CardRefused("burn_pending", "Scan the burn card first.")
        if self.burned:
            return
        self.position += self.burn_count
        self.burned = True

    def accept(self, card: Card) -> Card:
        """A dealt card, checked against what the shoe can still hold."""
        if not self.burned:
            raise CardRefused("burn_pending", "Burn the new shoe first.")
        self._check(card)
        self._take(card)
        return card

    def mark_cut_card_out(self) -> bool:
        """The cut card has appeared; False if it was already out."""
        if self.cut_card_out:
            return False
        self.cut_card_out = True
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "decks": self.decks,
            "seen": dict(sorted(self.seen.items())),
            "position": self.position,
            "burn_card": self.burn_card,
            "burn_count": self.burn_count,
            "burned": self.burned,
            "round_number": self.round_number,
            "cut_card_out": self.cut_card_out,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LiveShoeState:
        state = cls(
            decks=int(data["decks"]),
            seen={str(k): int(v) for k, v in dict(data.get("seen") or {}).items()},
            position=int(data.get("position", 0)),
            burn_card=str(data.get("burn_card", "")),
            burn_count=int(data.get("burn_count", 0)),
            burned=bool(data.get("burned", False)),
            round_number=int(data.get("round_number", 0)),
            cut_card_out=bool(data.get("cut_card_out", False)),
        )
        if not 1 <= state.decks <= 8 or not 0 <= state.position <= state.total_cards:
            raise ValueError("inconsistent live shoe state")
        if any(count > state.decks for count in state.seen.values()):
            raise ValueError("a live shoe state shows more copies of a card than its decks hold")
        return state


def new_live_shoe(decks: int) -> LiveShoeState:
    """A physical shoe just shuffled by the dealer: waiting for its burn card."""
    if not 1 <= decks <= 8:
        raise ValueError(f"a shoe holds 1 to 8 decks, not {decks}")
    return LiveShoeState(decks=decks)


def shoe_state(data: Mapping[str, Any]) -> ShoeState | LiveShoeState:
    """The persisted state of either kind of shoe (a live one says ``"kind": "live"``)."""
    if data.get("kind") == KIND:
        return LiveShoeState.from_dict(data)
    return ShoeState.from_dict(data)
