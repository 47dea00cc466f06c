"""Selectors for the fairness page (/fair/): every finished shoe with its revealed seed and dealt cards, and
the commitment of every shoe still in play.

Read-only. A shoe still in play gives only its commitment: its seed and its card order (both in
``Shoe.state``) never leave this module before the shoe is finished.

A live dealer's shoe (``algorithm`` ``"live"``) has no seed and no commitment: it is dealt physically and
recorded card by card with scan times. It is listed with its rounds, its dealer and those times, and never offered
for seed verification (``FinishedShoe.verifiable``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from django.core.paginator import EmptyPage, Page, Paginator
from django.db.models import IntegerField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from baccarat_site.errors import NotFound
from tables.models import Round, Shoe, Table
from tables.selectors.record import ScannedCard, scanned_cards

if TYPE_CHECKING:
    from typing import TypedDict

    from django_stubs_ext import WithAnnotations

    class _ShoeState(TypedDict):
        """What fair_shoes annotates a finished shoe with (django-stubs loses it through the Paginator)."""

        state_decks: int | None
        state_cut_index: int | None


#: Finished shoes per page.
PAGE_SIZE = 10


_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_face(code: str) -> dict[str, Any]:
    """How a card code reads on the page: "TD" → rank "10", suit "♦", red."""
    rank, suit = code[:-1], code[-1:]
    return {"code": code, "rank": "10" if rank == "T" else rank, "suit": _SUITS.get(suit, suit), "red": suit in "HD"}


@dataclass(frozen=True)
class DealtRound:
    number: int
    state: str
    winner: str
    is_last_of_shoe: bool
    #: [{"card": "5H", "hand": "player", "position": 1}, ...] in deal order.
    cards: list[dict[str, Any]]
    #: A live dealer's round: the dealer's public name, and the cards with their scan times.
    dealer: str = ""
    scans: list[ScannedCard] = field(default_factory=list)


@dataclass(frozen=True)
class FinishedShoe:
    """A finished shoe as anyone may check it: everything the browser needs to recompute it."""

    id: int
    table_id: int
    table_name: str
    number: int
    created_at: datetime
    finished_at: datetime
    commitment: str
    seed: str
    algorithm: str
    decks: int
    burn_card: str
    burn_count: int
    #: Cards the shoe had behind its cut card (52 × decks − cut index), when its state records it.
    behind_cut: int | None
    #: The table's cut-card range now (the shoe was cut with the range of its day: usually the same).
    cut_range: tuple[int, int]
    rounds: list[DealtRound] = field(default_factory=list)

    @property
    def live(self) -> bool:
        """Dealt by a live dealer from a physical shoe: no seed, recorded card by card with scan times."""
        return self.algorithm == Shoe.LIVE

    @property
    def verifiable(self) -> bool:
        """Has a seed and a commitment the page's script can recompute the shoe from."""
        return not self.live and bool(self.seed) and bool(self.commitment)

    @property
    def rounds_dealt(self) -> int:
        """Rounds that took cards from this shoe (a round cancelled before its deal took none)."""
        return sum(1 for r in self.rounds if r.cards)

    @property
    def burn_face(self) -> dict[str, Any] | None:
        return card_face(self.burn_card) if self.burn_card else None

    @property
    def cards_dealt(self) -> int:
        return sum(len(r.cards) for r in self.rounds)

    def verification_data(self) -> dict[str, Any]:
        """The JSON the page's script recomputes the shoe from (static/casino/fair.js)."""
        return {
            "id": self.id,
            "table": self.table_name,
            "number": self.number,
            "algorithm": self.algorithm,
            "seed": self.seed,
            "commitment": self.commitment,
            "decks": self.decks,
            "burn_card": self.burn_card,
            "burn_count": self.burn_count,
            "behind_cut": self.behind_cut,
            "cut_range": list(self.cut_range),
            # Every round that took cards, in deal order; "hands" says whose each card was (P or B).
            "rounds": [
                {
                    "number": r.number,
                    "last": r.is_last_of_shoe,
                    "winner": r.winner,
                    "cards": [c["card"] for c in r.cards],
                    "hands": "".join("P" if c["hand"] == "player" else "B" for c in r.cards),
                }
                for r in self.rounds
                if r.cards
            ],
        }


@dataclass(frozen=True)
class LiveShoe:
    """A shoe still in play: its commitment only."""

    table_id: int
    table_name: str
    number: int
    created_at: datetime
    commitment: str
    #: A live dealer's physical shoe: no commitment (it has no seed).
    dealt_live: bool = False


@dataclass(frozen=True)
class FairPage:
    page: Page
    shoes: list[FinishedShoe]
    live: list[LiveShoe]
    table: Table | None
    tables: list[Table]


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def fair_tables() -> list[Table]:
    """The tables the page can be filtered by."""
    return list(Table.objects.order_by("name", "id").only("id", "name"))


def fair_shoes(*, table_id: int | None = None, page: int = 1, per_page: int = PAGE_SIZE) -> FairPage:
    """One page of finished shoes, newest first (optionally of one table), with their rounds' cards, and the
    commitment of each shoe in play. Raises NotFound for an unknown table or a page past the last."""
    tables = fair_tables()
    table = None
    if table_id is not None:
        table = next((t for t in tables if t.pk == table_id), None)
        if table is None:
            raise NotFound("No such table.")

    shoes = Shoe.objects.all()
    if table is not None:
        shoes = shoes.filter(table_id=table.pk)
    finished = (
        shoes.filter(finished_at__isnull=False)
        .select_related("table__variant")
        # The state holds the whole order (416 card codes): only its two numbers are read.
        .defer("state")
        .annotate(
            state_decks=Cast(KT("state__decks"), IntegerField()),
            state_cut_index=Cast(KT("state__cut_index"), IntegerField()),
        )
        .order_by("-finished_at", "-id")
    )
    paginator = Paginator(finished, per_page, allow_empty_first_page=True)
    try:
        current = paginator.page(page)
    except EmptyPage:
        raise NotFound("There is no such page of shoes.") from None

    rows: list[WithAnnotations[Shoe, _ShoeState]] = list(current.object_list)
    rounds: dict[int, list[DealtRound]] = {row.pk: [] for row in rows}
    live_ids = {row.pk for row in rows if row.algorithm == Shoe.LIVE}
    for r in (
        Round.objects.filter(shoe_id__in=list(rounds))
        .order_by("shoe_id", "number")
        .values(
            "shoe_id", "number", "state", "winner", "is_last_of_shoe", "cards", "dealer__first_name", "dealer__username"
        )
    ):
        cards = sorted(r["cards"] or [], key=lambda c: c["position"])
        dealt_live = r["shoe_id"] in live_ids
        # The dealer as players saw them at the table (tables.selectors.tables.dealer_info): the first name.
        dealer = (r["dealer__first_name"] or r["dealer__username"] or "")[:40] if dealt_live else ""
        rounds[r["shoe_id"]].append(
            DealtRound(
                r["number"],
                r["state"],
                r["winner"] or "",
                r["is_last_of_shoe"],
                cards,
                dealer=dealer,
                scans=scanned_cards(cards) if dealt_live else [],
            )
        )

    result = []
    for row in rows:
        variant = row.table.variant
        decks = _int(row.state_decks) or variant.decks
        cut_index = _int(row.state_cut_index)
        result.append(
            FinishedShoe(
                id=row.pk,
                table_id=row.table_id,
                table_name=row.table.name,
                number=row.number,
                created_at=row.created_at,
                finished_at=cast("datetime", row.finished_at),  # finished_at__isnull=False above
                commitment=row.commitment,
                seed=row.server_seed,
                algorithm=row.algorithm,
                decks=decks,
                burn_card=row.burn_card,
                burn_count=row.burn_count,
                behind_cut=None if cut_index is None else 52 * decks - cut_index,
                cut_range=(variant.cut_min, variant.cut_max),
                rounds=rounds[row.pk],
            )
        )

    live = [
        LiveShoe(s.table_id, s.table.name, s.number, s.created_at, s.commitment, dealt_live=s.is_live)
        for s in shoes.filter(finished_at__isnull=True)
        .select_related("table")
        .only("table_id", "table__name", "number", "created_at", "commitment", "algorithm")
        .order_by("table__name", "table_id")
    ]
    return FairPage(page=current, shoes=result, live=live, table=table, tables=tables)
