"""How the records show what they hold: cards as faces, links to a row's page, a search term that is an id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from baccarat_site.numbers import whole_number
from tables.engine.cards import Card

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"A": "Ace", "T": "Ten", "J": "Jack", "Q": "Queen", "K": "King"}
RED_SUITS = frozenset("HD")
# Inline, so a face looks the same on any admin page, with no stylesheet or asset.
_FACE_STYLE = (
    "display:inline-block;min-width:2.1em;padding:.2em .3em;margin:0 .2em .2em 0;border:1px solid #8a8a8a;"
    "border-radius:4px;background:#fff;text-align:center;font-weight:bold;line-height:1.2;white-space:nowrap;"
    "font-variant-numeric:tabular-nums;color:{color}"
)
RED, BLACK = "#c0182b", "#111"


def card_face(code: str) -> SafeString:
    """One card as a small face: rank and suit symbol, red for hearts and diamonds, black otherwise."""
    try:
        card = Card.parse(code)
    except ValueError:
        return format_html('<span class="card-face card-unknown" data-card="{}">{}</span>', code, code)
    rank, suit = card.rank.value, card.suit.value
    red = suit in RED_SUITS
    return format_html(
        '<span class="card-face card-{}" data-card="{}" title="{} of {}" style="{}">{}{}</span>',
        "red" if red else "black",
        str(card),
        RANK_NAMES.get(rank, rank),
        SUIT_NAMES[suit],
        _FACE_STYLE.format(color=RED if red else BLACK),
        "10" if rank == "T" else rank,
        SUIT_SYMBOLS[suit],
    )


def card_faces(codes: Iterable[str]) -> SafeString:
    return format_html_join("", "{}", ((card_face(code),) for code in codes))


def hand_codes(cards: list[dict[str, Any]], hand: str) -> list[str]:
    return [c["card"] for c in sorted(cards, key=lambda c: c["position"]) if c["hand"] == hand]


def short_faces(cards: list[dict[str, Any]]) -> SafeString:
    """A round's cards in one line: "P <faces> · B <faces>"."""
    if not cards:
        return mark_safe("—")
    return format_html("P {} · B {}", card_faces(hand_codes(cards, "player")), card_faces(hand_codes(cards, "banker")))


def change_link(obj: Any, text: Any = None) -> SafeString:
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, obj if text is None else text)


def id_term(search_term: str) -> int | None:
    """A search term that is an id ("1234" or "#1234"), else None."""
    digits = search_term.strip().removeprefix("#")
    return whole_number(digits)  # ASCII digits only: "²", "①" or 5,000 digits are no id (not a 500)


WINNERS = {"player": "Player", "banker": "Banker", "tie": "Tie"}
