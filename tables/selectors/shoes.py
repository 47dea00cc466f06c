"""Selectors for shoes: the provably fair check of a finished shoe, as operators and auditors see it."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from tables.engine import fair
from tables.engine.shoe import burn_count_for
from tables.models import Shoe


@dataclass(frozen=True)
class Verification:
    ok: bool
    detail: str


def shoe_verification(shoe: Shoe) -> Verification | None:
    """Recompute a finished shoe from its revealed seed (None while the shoe is in play).

    The seed must hash to the published commitment; the persisted order must be the one the seed produces;
    the burn card and burn count must be the seed's; and the cards of the shoe's rounds, in round and deal
    order, must be exactly the cards that follow the burn in that order (``fair.verify_dealt``).
    """
    if shoe.finished_at is None:
        return None
    if shoe.algorithm == Shoe.LIVE:
        return Verification(
            False, "A live dealer's shoe has no seed to verify: its cards are recorded with scan times."
        )
    seed, published = shoe.server_seed, shoe.commitment
    if shoe.algorithm != fair.ALGORITHM:
        return Verification(False, f"Unknown algorithm {shoe.algorithm!r}: this admin verifies {fair.ALGORITHM}.")
    try:
        computed = fair.commitment(seed)
    except ValueError as exc:
        return Verification(False, f"The revealed seed is not a valid seed: {exc}.")
    if not hmac.compare_digest(computed, published.strip().lower()):
        return Verification(
            False, f"The revealed seed does not match the commitment: sha256(seed) is {computed}, not {published}."
        )
    state = shoe.state or {}
    try:
        decks = int(state.get("decks") or shoe.table.variant.decks)
        order = fair.shuffled_cards(seed, decks)
    except (TypeError, ValueError) as exc:
        return Verification(False, f"The shoe's deck count cannot be read: {exc}.")
    stored_order = state.get("cards")
    if stored_order is not None and not fair.verify_shoe(seed, published, stored_order):
        return Verification(False, "The shoe order it was dealt from is not the order the revealed seed produces.")
    if shoe.burn_card != str(order[0]):
        return Verification(False, f"Burn card: recorded {shoe.burn_card or '—'}, the seed's first card is {order[0]}.")
    if shoe.burn_count != burn_count_for(order[0]):
        return Verification(
            False, f"Burn count: recorded {shoe.burn_count}, a {order[0]} burns {burn_count_for(order[0])} cards."
        )

    start = 1 + shoe.burn_count
    dealt: list[str] = []
    rounds = shoe.rounds.order_by("number").values_list("number", "cards")
    for number, cards in rounds:
        for entry in sorted(cards or [], key=lambda c: c["position"]):
            index = start + len(dealt)
            expected = str(order[index]) if index < len(order) else "no card (the shoe is empty)"
            if entry["card"] != expected:
                return Verification(
                    False,
                    f"Round {number}, card {entry['position']} ({entry['hand']}): dealt {entry['card']}, "
                    f"the seed's order gives {expected}.",
                )
            dealt.append(entry["card"])
    if not fair.verify_dealt(seed, published, decks, [str(c) for c in order[:start]] + dealt):
        return Verification(False, "The dealt cards are not how the seed's shoe begins.")
    position = state.get("position")
    if position is not None and int(position) != start + len(dealt):
        return Verification(
            False,
            f"The shoe drew {int(position) - start} cards after the burn, its rounds record {len(dealt)}.",
        )
    return Verification(
        True,
        f"the revealed seed matches the commitment, the burn ({shoe.burn_card} and {shoe.burn_count} "
        f"cards) and all {len(dealt)} cards dealt in {len(rounds)} rounds are the seed's order.",
    )
