"""What the dealer's console shows (docs/api.md, "Dealer's console"): the round's state and countdown, the card
expected next, the cards dealt with their totals and scan times, the shoe (cards left, round in shoe, the cut
card, the burn), the dealer on shift and any open call for the supervisor."""

from __future__ import annotations

from typing import Any

from baccarat_site.clock import iso, server_time
from baccarat_site.errors import NotFound
from tables import engine
from tables.models import Round, Shoe, SupervisorCall, Table
from tables.selectors.tables import cards_with_totals, dealer_info, public_status

#: The console's name for each card of a round, by deal order: P1 B1 P2 B2, then the third cards.
SLOT_NAMES = {1: "P1", 2: "B1", 3: "P2", 4: "B2"}


def next_slot(cards: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The card the dealer deals next: ``{"slot": "P3", "hand": "player", "position": 5}``, None when the hand is
    complete."""
    hand = engine.next_hand([engine.Card.parse(c["card"]) for c in cards])
    if hand is None:
        return None
    position = len(cards) + 1
    return {"slot": SLOT_NAMES.get(position, f"{hand[0].upper()}3"), "hand": hand, "position": position}


def dealer_tables() -> list[dict[str, Any]]:
    """The live tables a dealer may sit at (not retired), with who is on shift."""
    tables = Table.objects.filter(dealing=Table.Dealing.LIVE).exclude(status=Table.Status.RETIRED)
    return [
        {"id": t.pk, "name": t.name, "status": t.status, "dealer": dealer_info(t.dealer), "dealer_id": t.dealer_id}
        for t in tables.select_related("dealer").order_by("id")
    ]


def console_state(table_id: int) -> dict[str, Any]:
    """GET /api/dealer/tables/{id}/: everything the console draws."""
    table = Table.objects.select_related("dealer", "variant").filter(pk=table_id, dealing=Table.Dealing.LIVE).first()
    if table is None:
        raise NotFound(f"There is no live dealer table {table_id}.", code="table_not_found")
    shoe = Shoe.objects.filter(table=table, finished_at__isnull=True).first()
    round_ = Round.objects.filter(table=table).order_by("-id").first()
    call = SupervisorCall.objects.filter(table=table, resolved_at__isnull=True).select_related("called_by").first()
    return {
        "table": {
            "id": table.pk,
            "name": table.name,
            "status": table.status,
            **public_status(table),
            "dealer": dealer_info(table.dealer),
            "dealer_id": table.dealer_id,
            "dealer_timeout_seconds": table.dealer_timeout_seconds,
            "video_url": table.video_url,
        },
        "shoe": _shoe(shoe, round_),
        "round": _round(round_) if round_ is not None else None,
        "call": _call(call) if call is not None else None,
        "server_time": server_time(),
    }


def _shoe(shoe: Shoe | None, round_: Round | None) -> dict[str, Any] | None:
    if shoe is None:
        return None
    state = engine.shoe_state(shoe.state)
    live = isinstance(state, engine.LiveShoeState)
    waiting = None
    if live and not state.burn_card:
        waiting = "burn_card"
    elif live and not state.ready:
        waiting = "burn_confirm"
    return {
        "number": shoe.number,
        "decks": state.decks,
        "cards_left": state.cards_left,
        "round_in_shoe": round_.number if round_ is not None and round_.shoe_id == shoe.pk else 0,
        "cut_card_out": state.is_last_round,
        "burn_card": shoe.burn_card or None,
        "burn_count": shoe.burn_count,
        "waiting_for": waiting,
    }


def _round(round_: Round) -> dict[str, Any]:
    cards = cards_with_totals(round_.cards)
    for shown, stored in zip(cards, round_.cards, strict=True):
        shown["slot"] = SLOT_NAMES.get(stored["position"], f"{stored['hand'][0].upper()}3")
        shown["dealt_at"] = stored.get("dealt_at")
    dealing = round_.state in (Round.State.CLOSED, Round.State.DEALING)
    return {
        "id": round_.pk,
        "number": round_.number,
        "state": round_.state,
        "paused_from": round_.paused_from or None,
        "closes_at": iso(round_.closes_at),
        "cards": cards,
        "totals": cards[-1]["totals"] if cards else {"player": 0, "banker": 0},
        "next": next_slot(round_.cards) if dealing else None,
        "winner": round_.winner or None,
        "is_last_of_shoe": round_.is_last_of_shoe,
    }


def _call(call: SupervisorCall) -> dict[str, Any]:
    return {
        "id": call.pk,
        "kind": call.kind,
        "reason": call.reason,
        "called_by": call.called_by.get_username() if call.called_by else None,
        "created_at": iso(call.created_at),
    }
