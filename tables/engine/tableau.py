"""Dealing one round of Punto Banco: deal order, naturals, and the third-card rules (docs/rules.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .cards import Card

Winner = Literal["player", "banker", "tie"]
Hand = Literal["player", "banker"]


class NotEnoughCards(ValueError):
    """The cards ran out before the round was complete."""


def hand_total(cards: Iterable[Card]) -> int:
    """Units digit of the sum of the cards' points (8 + 9 → 7)."""
    return sum(c.value for c in cards) % 10


def is_natural(two_card_total: int) -> bool:
    return two_card_total >= 8


def player_draws(player_two_card_total: int) -> bool:
    """Player draws on 0–5 and stands on 6–7 (naturals are decided before this is asked)."""
    return player_two_card_total <= 5


def banker_draws(banker_two_card_total: int, player_third_value: int | None) -> bool:
    """Whether Banker draws a third card (naturals are decided before this is asked).

    ``player_third_value`` is the point value (0–9) of Player's third card, or None if Player stood.
    """
    b = banker_two_card_total
    if player_third_value is None:
        return b <= 5
    x = player_third_value
    if b <= 2:
        return True
    if b == 3:
        return x != 8
    if b == 4:
        return 2 <= x <= 7
    if b == 5:
        return 4 <= x <= 7
    if b == 6:
        return 6 <= x <= 7
    return False


def _winner(player_total: int, banker_total: int) -> Winner:
    if player_total > banker_total:
        return "player"
    if banker_total > player_total:
        return "banker"
    return "tie"


@dataclass(frozen=True)
class RoundResult:
    """A finished round: both hands in deal order, totals, winner and the facts side bets look at."""

    player_cards: list[Card]
    banker_cards: list[Card]
    player_total: int
    banker_total: int
    winner: Winner
    player_pair: bool
    banker_pair: bool
    player_perfect_pair: bool
    banker_perfect_pair: bool
    player_natural: bool
    banker_natural: bool
    margin: int

    @classmethod
    def of_hands(cls, player_cards: Sequence[Card], banker_cards: Sequence[Card]) -> RoundResult:
        """The result for two complete hands, without checking they follow the third-card rules."""
        p = list(player_cards)
        b = list(banker_cards)
        if len(p) < 2 or len(b) < 2:
            raise ValueError("each hand has at least two cards")
        pt = hand_total(p)
        bt = hand_total(b)
        return cls(
            player_cards=p,
            banker_cards=b,
            player_total=pt,
            banker_total=bt,
            winner=_winner(pt, bt),
            player_pair=p[0].rank == p[1].rank,
            banker_pair=b[0].rank == b[1].rank,
            player_perfect_pair=p[0] == p[1],
            banker_perfect_pair=b[0] == b[1],
            player_natural=is_natural((p[0].value + p[1].value) % 10),
            banker_natural=is_natural((b[0].value + b[1].value) % 10),
            margin=abs(pt - bt),
        )

    @classmethod
    def from_cards(cls, player_cards: Sequence[Card], banker_cards: Sequence[Card]) -> RoundResult:
        """Rebuild a round from its stored hands, checking that the rules of the deal produce exactly them.

        Raises ValueError if the hands could not have been dealt (wrong number of cards for the tableau).
        """
        p = list(player_cards)
        b = list(banker_cards)
        if not (2 <= len(p) <= 3 and 2 <= len(b) <= 3):
            raise ValueError("each hand has two or three cards")
        order = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]
        it = iter(order)
        try:
            result = deal_round(it)
        except NotEnoughCards:
            raise ValueError("these hands are incomplete under the third-card rules") from None
        if next(it, None) is not None or result.player_cards != p or result.banker_cards != b:
            raise ValueError("these hands do not follow the third-card rules")
        return result

    @property
    def lucky_six(self) -> int | None:
        """2 or 3 (Banker's card count) when Banker wins with a total of 6, else None."""
        if self.winner == "banker" and self.banker_total == 6:
            return len(self.banker_cards)
        return None

    @property
    def is_natural(self) -> bool:
        return self.player_natural or self.banker_natural

    def cards_in_deal_order(self) -> list[tuple[str, Card]]:
        """(hand, card) in the order dealt: P1 B1 P2 B2, then Player's third, then Banker's third."""
        p, b = self.player_cards, self.banker_cards
        order: list[tuple[str, Card]] = [("player", p[0]), ("banker", b[0]), ("player", p[1]), ("banker", b[1])]
        order += [("player", c) for c in p[2:]]
        order += [("banker", c) for c in b[2:]]
        return order

    def flags(self) -> dict[str, Any]:
        """JSON-able facts about the round (what the scoreboard and the bet record show)."""
        return {
            "winner": self.winner,
            "player_total": self.player_total,
            "banker_total": self.banker_total,
            "margin": self.margin,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "any_pair": self.player_pair or self.banker_pair,
            "player_perfect_pair": self.player_perfect_pair,
            "banker_perfect_pair": self.banker_perfect_pair,
            "perfect_pair": self.player_perfect_pair or self.banker_perfect_pair,
            "player_natural": self.player_natural,
            "banker_natural": self.banker_natural,
            "lucky_six": self.lucky_six,
            "player_cards": len(self.player_cards),
            "banker_cards": len(self.banker_cards),
        }


def next_hand(dealt: Sequence[Card]) -> Hand | None:
    """Which hand the next card goes to, given the cards dealt so far in deal order (P1 B1 P2 B2, then a third
    card only when the tableau calls for it); None when the round is complete. A live dealer's console asks
    this before every scan: the card is never guessed, only where the next one goes."""
    if len(dealt) < 4:
        return "player" if len(dealt) % 2 == 0 else "banker"
    try:
        result = deal_round(iter(dealt))
    except NotEnoughCards:
        # Four or five cards and more needed: the fifth is Player's third unless Player stood.
        pt = (dealt[0].value + dealt[2].value) % 10
        return "player" if len(dealt) == 4 and player_draws(pt) else "banker"
    if len(result.player_cards) + len(result.banker_cards) != len(dealt):
        raise ValueError("more cards than the round calls for")
    return None


def deal_round(cards: Iterable[Card]) -> RoundResult:
    """Deal one round from ``cards`` (P1 B1 P2 B2, then third cards by the rules).

    Takes exactly the cards the round needs from the iterator (4 to 6), so the rest stays in the shoe.
    Raises NotEnoughCards if the cards run out first.
    """
    it = iter(cards)
    try:
        p1 = next(it)
        b1 = next(it)
        p2 = next(it)
        b2 = next(it)
        player = [p1, p2]
        banker = [b1, b2]
        pt = (p1.value + p2.value) % 10
        bt = (b1.value + b2.value) % 10
        if not (pt >= 8 or bt >= 8):
            third: int | None = None
            if player_draws(pt):
                p3 = next(it)
                player.append(p3)
                third = p3.value
            if banker_draws(bt, third):
                banker.append(next(it))
    except StopIteration:
        raise NotEnoughCards("the cards ran out in the middle of a round") from None
    return RoundResult.of_hands(player, banker)
