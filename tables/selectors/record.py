"""Reads for the player's bet record pages (/bets/, /bets/rounds/<id>/, /bets/export.csv).

Every query is filtered by the caller: a player only ever reads their own bets. The filtered bets come
from :func:`tables.selectors.bets.bet_list` (the REST API's record), so the pages and the API agree.
A page of the record costs a fixed number of queries whatever its size: the rounds of the page, their
bets, the totals and the page count.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.core.paginator import Paginator
from django.db.models import Count, Max, Q, QuerySet, Sum

from baccarat_site.money import ZERO
from tables.models import Bet, Round, Table
from tables.selectors.bets import MAX_ID, bet_list
from tables.selectors.outcomes import bet_payout
from tables.selectors.tables import dealer_info, round_public_reason

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

#: Rounds per page of the record.
ROUNDS_PER_PAGE = 20


@dataclass(frozen=True)
class RecordFilters:
    """What the player asked to see. Days are whole UTC days, both ends included."""

    day_from: date | None = None
    day_to: date | None = None
    table_id: int | None = None
    bet_type: str | None = None
    result: str | None = None


@dataclass
class CardFace:
    code: str
    rank: str
    suit: str
    red: bool
    third: bool  # the hand's third card (drawn sideways)


@dataclass(frozen=True)
class ScannedCard:
    """One card of a live dealer's round as it was scanned (game recall): deal order, hand, face, scan time."""

    position: int
    hand: str
    face: CardFace
    scanned_at: datetime | None


@dataclass
class RoundFacts:
    """A round's public facts as the record shows them, and the caller's bets on it."""

    id: int
    number: int
    state: str
    table_id: int
    table_name: str
    shoe_number: int
    time: datetime
    player_cards: list[CardFace]
    banker_cards: list[CardFace]
    player_total: int | None
    banker_total: int | None
    winner: str
    flags: dict[str, Any]
    reason: str
    bets: list[Bet] = field(default_factory=list)
    #: A live dealer's round: who dealt it (their first name, as players saw it at the table) and its cards as
    #: scanned, in deal order with their scan times. A round dealt by the server's shoe: "" and [].
    live: bool = False
    dealer: str = ""
    scans: list[ScannedCard] = field(default_factory=list)

    @property
    def staked(self) -> Decimal:
        return sum((bet.amount for bet in self.bets), ZERO)

    @property
    def returned(self) -> Decimal:
        return sum((bet.payout for bet in self.bets if bet.payout is not None), ZERO)

    @property
    def pending(self) -> Decimal:
        """Stakes of bets not settled yet."""
        return sum((bet.amount for bet in self.bets if bet.payout is None), ZERO)

    @property
    def net(self) -> Decimal:
        """Returned minus staked, over the settled bets only."""
        return sum((bet.payout - bet.amount for bet in self.bets if bet.payout is not None), ZERO)  # net_of, settled

    @property
    def is_open(self) -> bool:
        return any(bet.payout is None for bet in self.bets)


@dataclass(frozen=True)
class RecordTotals:
    bets: int
    rounds: int
    staked: Decimal
    returned: Decimal
    pending: Decimal

    @property
    def net(self) -> Decimal:
        """Returned minus the stakes of settled bets (open bets count once they are settled)."""
        return self.returned - (self.staked - self.pending)


@dataclass
class RecordPage:
    rounds: list[RoundFacts]
    number: int
    num_pages: int
    has_previous: bool
    has_next: bool


def net_of(bet: Bet) -> Decimal | None:
    """What a bet won or lost: payout − stake; None while it is open."""
    return None if bet.payout is None else bet.payout - bet.amount


def filtered_bets(*, user: User, filters: RecordFilters) -> QuerySet[Bet]:
    """The caller's bets the filters select, newest first (the REST record's query)."""
    placed_from = datetime.combine(filters.day_from, time.min, tzinfo=UTC) if filters.day_from else None
    placed_before = (
        datetime.combine(filters.day_to + timedelta(days=1), time.min, tzinfo=UTC) if filters.day_to else None
    )
    return bet_list(
        user=user,
        table_id=filters.table_id,
        bet_type=filters.bet_type,
        result=filters.result,
        placed_from=placed_from,
        placed_before=placed_before,
    )


def record_tables() -> list[tuple[int, str]]:
    """Every table as (id, name), for the table filter."""
    return list(Table.objects.order_by("name", "id").values_list("id", "name"))


def record_totals(*, user: User, filters: RecordFilters) -> RecordTotals:
    """Totals over everything the filters select (every page), in one query."""
    row = (
        filtered_bets(user=user, filters=filters)
        .order_by()
        .aggregate(
            bets=Count("id"),
            rounds=Count("round_id", distinct=True),
            staked=Sum("amount"),
            returned=Sum(bet_payout()),
            pending=Sum("amount", filter=Q(outcome__status__isnull=True)),
        )
    )
    return RecordTotals(
        bets=row["bets"],
        rounds=row["rounds"],
        staked=row["staked"] or ZERO,
        returned=row["returned"] or ZERO,
        pending=row["pending"] or ZERO,
    )


def _card_faces(cards: list[dict[str, Any]], hand: str) -> list[CardFace]:
    own = sorted((c for c in cards or [] if c.get("hand") == hand), key=lambda c: c["position"])
    faces = []
    for index, entry in enumerate(own):
        code = str(entry["card"])
        rank, suit = code[:-1], code[-1:]
        faces.append(
            CardFace(
                code=code,
                rank="10" if rank == "T" else rank,
                suit={"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(suit, suit),
                red=suit in ("H", "D"),
                third=index == 2,
            )
        )
    return faces


def _scan_time(value: Any) -> datetime | None:
    """A stored card's ``dealt_at`` (ISO 8601), or None when missing or unreadable (older rounds)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def scanned_cards(cards: list[dict[str, Any]] | None) -> list[ScannedCard]:
    """A live round's cards in deal order, each with its hand and scan time (``Round.cards`` ``dealt_at``)."""
    out = []
    for entry in sorted(cards or [], key=lambda c: c["position"]):
        face = _card_faces([{**entry, "position": 0}], str(entry.get("hand")))[0]
        out.append(ScannedCard(int(entry["position"]), str(entry.get("hand")), face, _scan_time(entry.get("dealt_at"))))
    return out


def _facts(round_: Round, when: datetime | None = None) -> RoundFacts:
    dealt = round_.state in (Round.State.RESULT, Round.State.SETTLED) or round_.player_total is not None
    live = round_.shoe.is_live
    dealer = dealer_info(round_.dealer) if live else None
    return RoundFacts(
        id=round_.pk,
        number=round_.number,
        state=round_.state,
        table_id=round_.table_id,
        table_name=round_.table.name,
        shoe_number=round_.shoe.number,
        time=when or round_.result_at or round_.closes_at,
        player_cards=_card_faces(round_.cards, "player") if dealt else [],
        banker_cards=_card_faces(round_.cards, "banker") if dealt else [],
        player_total=round_.player_total if dealt else None,
        banker_total=round_.banker_total if dealt else None,
        winner=round_.winner if dealt else "",
        flags=(round_.flags or {}) if dealt else {},
        reason=round_public_reason(round_) or "",  # never the operator's or a fault's own words
        live=live,
        dealer=dealer["name"] if dealer else "",
        scans=scanned_cards(round_.cards) if live and dealt else [],
    )


def record_page(*, user: User, filters: RecordFilters, page: int = 1, per_page: int = ROUNDS_PER_PAGE) -> RecordPage:
    """One page of the record: the rounds in which the caller has a bet the filters select, newest first,
    each with those bets. ``page`` beyond the last gives the last page."""
    bets = filtered_bets(user=user, filters=filters)
    round_ids = bets.order_by().values("round_id").annotate(last=Max("placed_at")).order_by("-last", "-round_id")
    paginator = Paginator(round_ids.values_list("round_id", flat=True), per_page)
    current = paginator.get_page(page)
    ids = list(current.object_list)
    rounds = (
        {r.pk: r for r in Round.objects.select_related("table", "shoe", "dealer").filter(pk__in=ids)} if ids else {}
    )
    facts = {round_id: _facts(rounds[round_id]) for round_id in ids}
    if ids:
        page_bets = bets.filter(round_id__in=ids).select_related(None).select_related("outcome", "round")
        for bet in page_bets.order_by("placed_at", "id"):
            facts[bet.round_id].bets.append(bet)
    return RecordPage(
        rounds=[facts[round_id] for round_id in ids],
        number=current.number,
        num_pages=paginator.num_pages,
        has_previous=current.has_previous(),
        has_next=current.has_next(),
    )


def record_round(*, user: User | AnonymousUser | None, round_id: int) -> tuple[RoundFacts, dict[str, Any]] | None:
    """One round with only the caller's bets on it (none if they had none), and its shoe's public facts
    (number, commitment, the seed once the shoe is finished). None if there is no such round."""
    if not 0 < round_id <= MAX_ID:
        return None
    round_ = Round.objects.select_related("table", "shoe", "dealer").filter(pk=round_id).first()
    if round_ is None:
        return None
    facts = _facts(round_)
    if user is not None and getattr(user, "is_authenticated", False):
        facts.bets = list(Bet.objects.filter(round_id=round_.pk, user=cast("User", user)).order_by("placed_at", "id"))
    shoe = round_.shoe
    return facts, {
        "number": shoe.number,
        "commitment": shoe.commitment,
        "algorithm": shoe.algorithm,
        # A live dealer's physical shoe: no seed and no commitment, its cards recorded with scan times instead.
        "live": shoe.is_live,
        "finished": shoe.finished_at is not None,
        "revealed_seed": shoe.revealed_seed,
    }


def record_csv_bets(*, user: User, filters: RecordFilters) -> Iterator[Bet]:
    """Every bet the filters select, newest first, with its table and shoe, streamed in chunks."""
    bets = filtered_bets(user=user, filters=filters).select_related("round__table", "round__shoe")
    return bets.iterator(chunk_size=500)
