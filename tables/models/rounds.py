"""Shoes and rounds: what a table dealt.

A :class:`Shoe` keeps its engine state, its seed (secret until it is finished) and commitment; a :class:`Round`
its cards, result and the terms it opened with. Its transitions are compare-and-set updates in
``tables.services.transitions``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import IntegerField, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from tables.models.tables import Table


class Shoe(models.Model):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField()
    # tables.engine.ShoeState.to_dict(): order, position, burn, cut index, round number.
    state = models.JSONField()
    # Secret until the shoe is finished; only the commitment is public before.
    server_seed = models.CharField(max_length=128)
    commitment = models.CharField(max_length=64)
    algorithm = models.CharField(max_length=16, default="v1")
    burn_card = models.CharField(max_length=2, blank=True)
    burn_count = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="shoe_number_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(finished_at__isnull=True), name="shoe_one_active_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} shoe {self.number}"

    #: ``algorithm`` of a live table's shoe: a physical shoe, scanned card by card (no seed, no commitment).
    LIVE = "live"

    @property
    def is_live(self) -> bool:
        return self.algorithm == self.LIVE

    @property
    def revealed_seed(self) -> str | None:
        return self.server_seed if self.finished_at else None

    @property
    def decks(self) -> int | None:
        """The decks this shoe was shuffled from: its state's ``decks`` (every dealt shoe records it, see
        ``ShoeState.to_dict``), else its card count / 52; None for a placeholder state without either. A shoe
        keeps its deck count when its table's variant changes (the next shoe takes the new one)."""
        return decks_of_state(self.state)


def decks_of_state(state: Any) -> int | None:
    """The deck count a shoe state records (``decks``, else ``len(cards) // 52``), None when it records none."""
    if not isinstance(state, dict):
        return None
    decks = state.get("decks")
    if decks is None and isinstance(state.get("cards"), list) and state["cards"]:
        decks = len(state["cards"]) // 52
    try:
        return int(decks) if decks is not None and int(decks) >= 1 else None
    except (TypeError, ValueError):
        return None


def shoe_decks_sql(state: str = "state") -> Any:
    """:attr:`Shoe.decks` as a SQL expression over the ``state`` path given (``"shoe__state"`` from a round):
    the state's ``decks`` as an integer, NULL when absent (the placeholder states of tests; a dealt shoe always
    records it). Lets a query read the deck count without loading the state's card order."""
    return Cast(KeyTextTransform("decks", state), IntegerField())


class Round(models.Model):
    class Winner(models.TextChoices):
        PLAYER = "player", "Player"
        BANKER = "banker", "Banker"
        TIE = "tie", "Tie"

    class State(models.TextChoices):
        BETTING = "betting", "Betting"
        CLOSED = "closed", "Closed"
        DEALING = "dealing", "Dealing"
        RESULT = "result", "Result"
        SETTLED = "settled", "Settled"
        PAUSED = "paused", "Paused"
        CANCELLED = "cancelled", "Cancelled"

    FINAL_STATES = (State.SETTLED, State.CANCELLED)

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField(help_text="Round number within the shoe, from 1.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.BETTING)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    # When the window actually closed (closes_at → closed_at is the scheduler's lateness).
    closed_at = models.DateTimeField(null=True, blank=True)
    dealing_started_at = models.DateTimeField(null=True, blank=True)
    # When the round last came back from a pause (tables.services.controls.table_resume): a live round's dealer
    # gets their whole time for the next card from then, not from a card scanned before the pause.
    resumed_at = models.DateTimeField(null=True, blank=True)
    result_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # The round's one payout or refund transaction (wallets), when its settlement paid anyone.
    settlement_transaction = models.ForeignKey(
        "wallets.LedgerTransaction", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # Cards as dealt, persisted before each is announced:
    # [{"hand": "player", "card": "5H", "position": 1, "dealt_at": "2026-…Z"}, ...] (position 1..6 in deal
    # order; dealt_at, the deal step's time in ISO 8601 UTC, is missing on rounds dealt before it was kept)
    cards = models.JSONField(default=list, blank=True)
    player_total = models.PositiveSmallIntegerField(null=True, blank=True)
    banker_total = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.CharField(max_length=6, blank=True, choices=Winner.choices)  # blank until the result
    flags = models.JSONField(null=True, blank=True)
    is_last_of_shoe = models.BooleanField(default=False)
    # A live table's round: the dealer on shift when its dealing started (the recall shows who dealt it).
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # While paused: the state to go back to on resume.
    paused_from = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=200, blank=True, help_text="Why it was paused or cancelled.")
    # The paytable and limits the round opened with (Variant.terms()): bets are checked and settled by
    # these, so an operator's edit to the variant applies from the next round and never to a confirmed bet.
    terms = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="round_number_unique_per_shoe"),
            models.UniqueConstraint(
                fields=["table"],
                condition=~Q(state__in=["settled", "cancelled"]),
                name="round_one_live_per_table",
            ),
            models.CheckConstraint(
                condition=Q(player_total__isnull=True) | Q(player_total__lte=9, banker_total__lte=9),
                name="round_totals_0_to_9",
            ),
            models.CheckConstraint(condition=Q(winner__in=["", "player", "banker", "tie"]), name="round_winner_known"),
            models.CheckConstraint(
                condition=Q(state__in=["betting", "closed", "dealing", "result", "settled", "paused", "cancelled"]),
                name="round_state_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} · shoe {self.shoe.number} · round {self.number}"
