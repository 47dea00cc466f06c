"""Where a table's cards come from (``Table.dealing``): the one seam between the server's shoe and a live dealer.

- :class:`ServerShoe` (``"shoe"``): the server shuffles a seeded shoe, burns, and the ticker deals each card when
  it is due (``Table.deal_interval_ms`` apart);
- :class:`LiveShoe` (``"live"``): a dealer shuffles a physical shoe and scans each card at the dealer's console
  (``tables.services.dealing.card_scan``); the ticker only reveals a complete round.

The transitions (``tables.services.transitions``) ask the table's source for a new shoe and for each card; nothing
else in the services tells the two apart.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from baccarat_site.errors import DomainError
from tables import engine
from tables.models import Shoe, Table, Variant

ShoeStates = engine.ShoeState | engine.LiveShoeState


class DealingRefused(DomainError):
    """A dealer's scan or step that cannot be taken now: nothing was dealt or changed."""

    code = "rescan"
    status = 409


class NotLive(DomainError):
    code = "not_live"
    status = 409


# ── the seam ────────────────────────────────────────────────────────────────


class CardSource(Protocol):
    """Where a table's cards come from."""

    #: The ticker deals each card when it is due (else the cards come from outside, one scan at a time).
    automatic: bool

    def new_shoe(self, variant: Variant) -> tuple[ShoeStates, dict[str, Any]]:
        """A fresh shoe's state and the ``Shoe`` fields that describe it (seed, commitment, burn)."""
        ...

    def take(self, state: ShoeStates, scanned: engine.Card | None) -> engine.Card:
        """The next card out of the shoe (``scanned``: the card a dealer scanned), advancing ``state``."""
        ...

    def after_card(self, table: Table, now: datetime, complete: bool) -> datetime:
        """When the ticker should next look at the round after a card."""
        ...


class ServerShoe:
    """The server's own shoe: shuffled from a secret seed (its commitment public), burned, dealt on a timer."""

    automatic = True

    def new_shoe(self, variant: Variant) -> tuple[engine.ShoeState, dict[str, Any]]:
        seed = engine.new_server_seed()
        state = engine.new_shoe(variant.decks, seed_hex=seed, cut_range=(variant.cut_min, variant.cut_max))
        fields = {
            "server_seed": seed,
            "commitment": engine.commitment(seed),
            "burn_card": str(state.burn_card),
            "burn_count": state.burn_count,
        }
        return state, fields

    def take(self, state: ShoeStates, scanned: engine.Card | None) -> engine.Card:
        if scanned is not None or not isinstance(state, engine.ShoeState):
            raise DealingRefused("This table is dealt by the server's shoe, not by a dealer.", code="not_live")
        return state.draw()

    def after_card(self, table: Table, now: datetime, complete: bool) -> datetime:
        return now + timedelta(milliseconds=table.deal_interval_ms)


class LiveShoe:
    """A physical shoe at a live dealer's table: each card is scanned; the server checks, never guesses."""

    automatic = False

    def new_shoe(self, variant: Variant) -> tuple[engine.LiveShoeState, dict[str, Any]]:
        state = engine.new_live_shoe(variant.decks)
        return state, {"server_seed": "", "commitment": "", "algorithm": Shoe.LIVE, "burn_card": "", "burn_count": 0}

    def take(self, state: ShoeStates, scanned: engine.Card | None) -> engine.Card:
        if scanned is None or not isinstance(state, engine.LiveShoeState):
            raise DealingRefused("A live table's cards come from the dealer's scanner.", code="not_shoe")
        try:
            return state.accept(scanned)
        except engine.CardRefused as refused:
            raise DealingRefused(refused.detail, code=refused.code) from None

    def after_card(self, table: Table, now: datetime, complete: bool) -> datetime:
        # A complete round is revealed after the usual pause; else the dealer has until the silent deadline.
        if complete:
            return now + timedelta(milliseconds=table.deal_interval_ms)
        return now + timedelta(seconds=table.dealer_timeout_seconds)


SOURCES: dict[str, CardSource] = {Table.Dealing.SHOE.value: ServerShoe(), Table.Dealing.LIVE.value: LiveShoe()}


def source_for(table: Table) -> CardSource:
    """The card source of a table (its ``dealing``)."""
    return SOURCES[table.dealing]


def shoe_state(shoe: Shoe) -> ShoeStates:
    """The persisted state of a shoe of either kind."""
    return engine.shoe_state(shoe.state)
