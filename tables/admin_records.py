"""The admin of what happened: shoes, rounds and bets (and the audit trail), all read-only.

These rows change only through the services (``tables.services``, ``wallets.services``): nobody, not even a
superuser, adds, changes or deletes one here.

* **Rounds**: filters by table, state and date; search by round id. A round's page is its recall for a
  dispute: its cards as faces in deal order with the running totals and the time each was dealt, the result
  and its flags, who paused, resumed or cancelled it and why (the audit trail,
  :func:`tables.selectors.recall.round_actions`), the terms it opened with (``Round.terms``) and every bet
  with its terms (type, mode, amount, the odds it was taken at) and outcome (status, payout).
* **Shoes**: the commitment, the seed once revealed (never the live seed or order), the burn, the rounds, and
  for a finished shoe a verification recomputed with :mod:`tables.engine.fair`.
* **Bets**: search by player or round id, filters, and a streamed CSV export of the selected bets (an action)
  or of the whole filtered list (the "Export CSV" button).
* **Audit trail**: auditlog's ``LogEntry`` admin, replaced by a subclass that can never delete an entry and
  shows who from the name the entry stores.

``tables/admin.py`` imports this module, so the admin's autodiscovery registers these.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from auditlog.admin import LogEntryAdmin as AuditlogLogEntryAdmin
from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect, StreamingHttpResponse
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from baccarat_site import csvexport, money
from baccarat_site.adminkit import ReadOnlyAdmin, ReadOnlyMixin
from baccarat_site.audit import who
from baccarat_site.numbers import whole_number
from tables.engine import BET_TYPES
from tables.engine.cards import Card
from tables.engine.display import odds_label, payout_label
from tables.engine.payouts import Paytable
from tables.models import PAYTABLE_FIELDS, Bet, Round, Shoe
from tables.selectors.outcomes import bet_payout
from tables.selectors.recall import round_actions
from tables.selectors.shoes import shoe_verification
from tables.selectors.tables import cards_with_totals

# ── cards as faces ──────────────────────────────────────────────────────────

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


def _hand_codes(cards: list[dict[str, Any]], hand: str) -> list[str]:
    return [c["card"] for c in sorted(cards, key=lambda c: c["position"]) if c["hand"] == hand]


def _short_faces(cards: list[dict[str, Any]]) -> SafeString:
    """A round's cards in one line: "P <faces> · B <faces>"."""
    if not cards:
        return mark_safe("—")
    return format_html(
        "P {} · B {}", card_faces(_hand_codes(cards, "player")), card_faces(_hand_codes(cards, "banker"))
    )


def _money(value: Decimal | None) -> str:
    return "—" if value is None else money.display(value)


def _change_link(obj: Any, text: Any = None) -> SafeString:
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, obj if text is None else text)


def _id_term(search_term: str) -> int | None:
    """A search term that is an id ("1234" or "#1234"), else None."""
    digits = search_term.strip().removeprefix("#")
    return whole_number(digits)  # ASCII digits only: "²", "①" or 5,000 digits are no id (not a 500)


WINNERS = {"player": "Player", "banker": "Banker", "tie": "Tie"}
FLAG_LABELS = (
    ("player_pair", "Player pair"),
    ("banker_pair", "Banker pair"),
    ("player_perfect_pair", "Player perfect pair"),
    ("banker_perfect_pair", "Banker perfect pair"),
    ("player_natural", "Player natural"),
    ("banker_natural", "Banker natural"),
    ("lucky_six", "Lucky six"),
)


# ── rounds ──────────────────────────────────────────────────────────────────


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "shoe_number",
        "number",
        "state",
        "cards_short",
        "player_total",
        "banker_total",
        "winner_display",
        "opens_at",
    )
    list_display_links = ("id", "number")
    list_filter = ("table", "state", "is_last_of_shoe")
    list_select_related = ("table", "shoe")
    date_hierarchy = "opens_at"
    search_fields = ("=id",)
    search_help_text = "A round id (1234 or #1234)."
    show_full_result_count = False
    fieldsets = (
        (None, {"fields": ("table_link", "shoe_link", "number", "state", "reason", "is_last_of_shoe")}),
        ("Cards and result", {"fields": ("dealer_display", "cards_dealt", "result", "flags_display")}),
        ("Operator actions and faults", {"fields": ("actions_display",)}),
        ("Terms the round opened with", {"fields": ("terms_display",)}),
        (
            "Times",
            {
                "fields": (
                    "opens_at",
                    "closes_at",
                    "closed_at",
                    "dealing_started_at",
                    "result_at",
                    "settled_at",
                    "cancelled_at",
                )
            },
        ),
    )
    readonly_fields = (
        "table_link",
        "shoe_link",
        "dealer_display",
        "cards_dealt",
        "result",
        "flags_display",
        "actions_display",
        "terms_display",
    )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Round], search_term: str
    ) -> tuple[QuerySet[Round], bool]:
        if not search_term.strip():
            return queryset, False
        round_id = _id_term(search_term)
        return (queryset.filter(pk=round_id) if round_id is not None else queryset.none()), False

    @admin.display(description="Shoe", ordering="shoe__number")
    def shoe_number(self, round_: Round) -> int:
        return round_.shoe.number

    @admin.display(description="Cards")
    def cards_short(self, round_: Round) -> SafeString:
        return _short_faces(round_.cards)

    @admin.display(description="Winner", ordering="winner")
    def winner_display(self, round_: Round) -> str:
        return WINNERS.get(round_.winner, "—")

    @admin.display(description="Table")
    def table_link(self, round_: Round) -> SafeString:
        return _change_link(round_.table)

    @admin.display(description="Shoe")
    def shoe_link(self, round_: Round) -> SafeString:
        return _change_link(round_.shoe, f"Shoe {round_.shoe.number}")

    @admin.display(description="Dealer")
    def dealer_display(self, round_: Round) -> str:
        """A live round's dealer: the dealer on shift when its dealing started (who scanned each card is beside
        every card below)."""
        if round_.dealer is not None:
            return round_.dealer.get_username()
        return "— (the server's shoe)" if not round_.shoe.is_live else "— (no card dealt yet)"

    @admin.display(description="Cards")
    def cards_dealt(self, round_: Round) -> SafeString:
        if not round_.cards:
            return mark_safe("No card dealt.")
        dealt = sorted(round_.cards, key=lambda c: c["position"])
        steps = [
            {
                **step,
                "face": card_face(step["card"]),
                "hand_label": step["hand"].title(),
                "dealt_at": _deal_time(stored.get("dealt_at")),
                "scanned_by": stored.get("scanned_by_name") or "",
            }
            for step, stored in zip(cards_with_totals(dealt), dealt, strict=True)
        ]
        totals = steps[-1]["totals"]
        hands = [
            {
                "name": name.title(),
                "faces": card_faces(_hand_codes(dealt, name)),
                "total": totals[name],
            }
            for name in ("player", "banker")
        ]
        scanned = any(step["scanned_by"] for step in steps)
        return render_to_string("admin/tables/round/_deal.html", {"hands": hands, "steps": steps, "scanned": scanned})

    @admin.display(description="Who and why")
    def actions_display(self, round_: Round) -> SafeString:
        actions = round_actions(round_)
        if not actions:
            return mark_safe("No operator action or fault touched this round.")
        return render_to_string("admin/tables/round/_actions.html", {"actions": actions})

    @admin.display(description="Result")
    def result(self, round_: Round) -> str:
        if not round_.winner:
            return "No result yet." if round_.state != Round.State.CANCELLED else "Cancelled: no result."
        scores = f"Player {round_.player_total} – Banker {round_.banker_total}"
        if round_.winner == "tie":
            return f"Tie ({scores})"
        return f"{WINNERS[round_.winner]} wins ({scores})"

    @admin.display(description="Flags")
    def flags_display(self, round_: Round) -> SafeString:
        flags = round_.flags or {}
        if not flags:
            return mark_safe("—")
        items = format_html_join(
            "",
            '<li data-flag="{}" data-on="{}" style="{}">{} {}</li>',
            (
                (key, "yes", "font-weight:bold", "✔", label) if flags.get(key) else (key, "no", "", "✘", label)
                for key, label in FLAG_LABELS
            ),
        )
        extra = []
        if flags.get("margin") is not None:
            extra.append(f"margin {flags['margin']}")
        if flags.get("player_cards"):
            extra.append(f"Player {flags['player_cards']} cards, Banker {flags.get('banker_cards')} cards")
        return format_html(
            '<ul class="round-flags" style="margin:0;padding:0;list-style:none">{}</ul>{}',
            items,
            format_html('<p class="help">{}</p>', "; ".join(extra)) if extra else "",
        )

    @admin.display(description="Paytable and limits")
    def terms_display(self, round_: Round) -> SafeString:
        terms = round_.terms or {}
        if not terms:
            return mark_safe("Not recorded.")
        return render_to_string("admin/tables/round/_terms.html", _terms_context(terms))

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Round | None = None,
    ) -> HttpResponse:
        if obj is not None and request.user.has_perm("tables.view_bet"):
            bets = list(obj.bets.select_related("user").order_by("placed_at", "id"))
            paytable = _paytable_of(obj)
            for bet in bets:  # the odds the bet was taken at: the round's own terms, in the bet's mode
                bet.pays = payout_label(bet.type, paytable, bet.mode) if paytable else "?"  # type: ignore[attr-defined]
            totals = obj.bets.aggregate(staked=Sum("amount"), paid=Sum(bet_payout()))
            context.update(
                round_bets=bets,
                bets_staked=_money(totals["staked"]),
                bets_paid=_money(totals["paid"]),
                bets_url=reverse("admin:tables_bet_changelist") + "?" + urlencode({"round__id__exact": obj.pk}),
            )
        return super().render_change_form(request, context, add, change, form_url, obj)


def _deal_time(value: Any) -> str:
    """A card's stored deal time (ISO 8601) as the admin shows it, UTC to the millisecond; "—" if not kept."""
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def _paytable_of(round_: Round) -> Paytable | None:
    try:
        return Paytable.from_dict((round_.terms or {})["paytable"])
    except (KeyError, TypeError, ValueError):
        return None


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def _terms_context(terms: dict[str, Any]) -> dict[str, Any]:
    """Round.terms (``Variant.terms()``: paytable and limits) as rows for the template."""
    paytable = terms.get("paytable") or {}
    limits = terms.get("limits") or {}
    pays = []
    for name in [*PAYTABLE_FIELDS, *(k for k in paytable if k not in PAYTABLE_FIELDS and k != "bonus_margins")]:
        if name in paytable:
            odds = _decimal(paytable[name])
            pays.append((name.replace("_", " ").capitalize(), paytable[name], odds_label(odds) if odds else "?"))
    for margin, value in sorted((paytable.get("bonus_margins") or {}).items(), key=lambda kv: int(kv[0])):
        odds = _decimal(value)
        pays.append((f"Bonus, win by {margin}", value, odds_label(odds) if odds else "?"))
    cutoffs = limits.get("unavailable_after") or {}
    per_type = limits.get("per_type") or {}
    order = [*(t for t in BET_TYPES if t in per_type), *(t for t in per_type if t not in BET_TYPES)]
    bets = [
        (
            bet_type.replace("_", " ").capitalize(),
            per_type[bet_type].get("min"),
            per_type[bet_type].get("max"),
            cutoffs.get(bet_type),
        )
        for bet_type in order
    ]
    return {"pays": pays, "bets": bets, "pb_difference": limits.get("pb_difference")}


# ── shoes ───────────────────────────────────────────────────────────────────


class ShoeStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("live", "In play"), ("finished", "Finished")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Shoe]) -> QuerySet[Shoe]:
        if self.value() == "live":
            return queryset.filter(finished_at__isnull=True)
        if self.value() == "finished":
            return queryset.filter(finished_at__isnull=False)
        return queryset


#: What a live shoe keeps secret: its seed, and its state (which holds the seed and the whole order).
SECRET_SHOE_FIELDS = ("server_seed", "state")


@admin.register(Shoe)
class ShoeAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "number", "commitment_short", "burn", "round_count", "created_at", "finished_at")
    list_display_links = ("id", "number")
    list_filter = ("table", ShoeStatusFilter)
    list_select_related = ("table",)
    date_hierarchy = "created_at"
    # Never the live seed or the shoe's order: SECRET_SHOE_FIELDS are not among these (``seed`` shows a finished
    # shoe's seed only).
    fields = (
        "table",
        "number",
        "algorithm",
        "commitment",
        "seed",
        "burn",
        "rounds_link",
        "created_at",
        "finished_at",
        "verification",
    )
    readonly_fields = ("seed", "burn", "rounds_link", "verification")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Shoe]:
        return super().get_queryset(request).annotate(round_count=Count("rounds")).defer(*SECRET_SHOE_FIELDS)

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        """No filtering on the seed or the order: ``?server_seed__startswith=…`` would reveal a live shoe's seed."""
        if lookup.split("__", 1)[0] in SECRET_SHOE_FIELDS:
            return False
        return super().lookup_allowed(lookup, value, request)

    @admin.display(description="Commitment")
    def commitment_short(self, shoe: Shoe) -> SafeString:
        if shoe.is_live:
            return mark_safe("— (live dealer)")
        return format_html('<code title="{}">{}…</code>', shoe.commitment, shoe.commitment[:16])

    @admin.display(description="Burn")
    def burn(self, shoe: Shoe) -> SafeString:
        if not shoe.burn_card:
            return mark_safe("—")
        return format_html("{} then {} cards face down", card_face(shoe.burn_card), shoe.burn_count)

    @admin.display(description="Rounds", ordering="round_count")
    def round_count(self, shoe: Shoe) -> int:
        return shoe.round_count  # type: ignore[attr-defined]

    @admin.display(description="Server seed")
    def seed(self, shoe: Shoe) -> SafeString:
        if shoe.is_live:
            return mark_safe("None: a live dealer's physical shoe, recorded card by card with scan times.")
        if shoe.finished_at is None:
            return mark_safe("Secret until the shoe is finished; only the commitment is public.")
        return format_html("<code>{}</code>", shoe.server_seed)

    @admin.display(description="Rounds")
    def rounds_link(self, shoe: Shoe) -> SafeString:
        count = getattr(shoe, "round_count", None)
        if count is None:
            count = shoe.rounds.count()
        url = reverse("admin:tables_round_changelist") + "?" + urlencode({"shoe__id__exact": shoe.pk})
        return format_html('<a href="{}">{} round{}</a>', url, count, "" if count == 1 else "s")

    @admin.display(description="Verification")
    def verification(self, shoe: Shoe) -> SafeString:
        # ``defer`` above: the seed and state are loaded here, for a finished shoe only.
        if shoe.is_live:
            return mark_safe(
                '<span class="shoe-verification" data-verified="live">Not applicable: a live dealer dealt this shoe '
                "from a physical shoe; it has no seed. Its rounds record every card with its scan time.</span>"
            )
        result = shoe_verification(shoe)
        if result is None:
            return mark_safe(
                '<span class="shoe-verification" data-verified="pending">Not yet: the shoe is in play, its seed '
                "is revealed and verifiable once it is finished.</span>"
            )
        return format_html(
            '<strong class="shoe-verification" data-verified="{}" style="color:{}">{}</strong>: {}',
            "yes" if result.ok else "no",
            "#1a7f37" if result.ok else "#ba2121",
            "verified" if result.ok else "FAILED",
            result.detail,
        )

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Shoe | None = None,
    ) -> HttpResponse:
        if obj is not None:
            rounds = list(obj.rounds.order_by("number"))
            for round_ in rounds:
                round_.faces = _short_faces(round_.cards)  # type: ignore[attr-defined]
                round_.winner_label = WINNERS.get(round_.winner, "—")  # type: ignore[attr-defined]
            context["shoe_rounds"] = rounds
        return super().render_change_form(request, context, add, change, form_url, obj)


# ── bets ────────────────────────────────────────────────────────────────────

BET_CSV_HEADER = (
    "id",
    "placed_at",
    "player",
    "table",
    "round_id",
    "shoe",
    "round_number",
    "type",
    "mode",
    "amount",
    "status",
    "payout",
)


def bet_csv_row(bet: Bet) -> list[object]:
    """One bet's cells (written by :mod:`baccarat_site.csvexport`): times in ISO 8601 (UTC), amounts plain."""
    return [
        bet.pk,
        bet.placed_at,
        bet.user.get_username(),
        bet.round.table.name,
        bet.round_id,
        bet.round.shoe.number,
        bet.round.number,
        bet.type,
        bet.mode,
        bet.amount,
        bet.status,
        bet.payout,
    ]


def bet_csv_rows(queryset: QuerySet[Bet]) -> Iterator[list[object]]:
    """The bets' rows, read from the database as they are sent."""
    rows = queryset.select_related("user", "round__table", "round__shoe", "outcome").only(
        "id",
        "placed_at",
        "type",
        "mode",
        "amount",
        "round_id",
        "outcome__status",
        "outcome__odds",
        "user__username",
        "round__number",
        "round__table__name",
        "round__shoe__number",
    )
    return (bet_csv_row(bet) for bet in rows.iterator(chunk_size=2000))


def bet_csv_response(request: HttpRequest, queryset: QuerySet[Bet]) -> StreamingHttpResponse:
    return csvexport.response(request, filename="bets.csv", header=BET_CSV_HEADER, rows=bet_csv_rows(queryset))


class BetStatusFilter(admin.SimpleListFilter):
    """A bet's status: its kind's outcome on its round, or open while there is none."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(value, str(label)) for value, label in Bet.Status.choices]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Bet]) -> QuerySet[Bet]:
        value = self.value()
        if value == Bet.Status.OPEN:
            return queryset.filter(outcome__status__isnull=True)
        if value in Bet.Status.values:
            return queryset.filter(outcome__status=value)
        return queryset


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "user",
        "table",
        "round_link",
        "type",
        "mode",
        "amount",
        "status",
        "payout",
        "placed_at",
    )
    list_filter = (BetStatusFilter, "type", "mode", "round__table")
    list_select_related = ("user", "round__table", "round__shoe", "outcome")
    search_fields = ("user__username", "=round__id")
    search_help_text = "A player's username, or a round id (1234 or #1234)."
    date_hierarchy = "placed_at"
    show_full_result_count = False
    actions = ("export_csv",)
    fields = (
        "id",
        "user",
        "round_link",
        "table",
        "type",
        "mode",
        "amount",
        "status",
        "payout",
        "placement",
        "settlement_transaction",
        "placed_at",
        "settled_at",
    )
    readonly_fields = fields

    @admin.display(description="Status", ordering="outcome__status")
    def status(self, bet: Bet) -> str:
        return bet.get_status_display()

    @admin.display(description="Payout", ordering=bet_payout())
    def payout(self, bet: Bet) -> Decimal | None:
        return bet.payout

    @admin.display(description="Settlement transaction")
    def settlement_transaction(self, bet: Bet) -> SafeString | str:
        txn = bet.round.settlement_transaction if bet.settlement_transaction_id else None
        return "-" if txn is None else _change_link(txn, str(txn))

    @admin.display(description="Settled at", ordering=Coalesce("round__settled_at", "round__cancelled_at"))
    def settled_at(self, bet: Bet) -> datetime | None:
        return bet.settled_at

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Bet], search_term: str
    ) -> tuple[QuerySet[Bet], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        match = Q(user__username__icontains=term)
        round_id = _id_term(term)
        if round_id is not None:
            match |= Q(round_id=round_id)
        return queryset.filter(match), False

    @admin.display(description="Table", ordering="round__table__name")
    def table(self, bet: Bet) -> str:
        return bet.round.table.name

    @admin.display(description="Round", ordering="round_id")
    def round_link(self, bet: Bet) -> SafeString:
        return _change_link(bet.round, f"#{bet.round_id} (shoe {bet.round.shoe.number}, round {bet.round.number})")

    @admin.action(description="Export the selected bets as CSV", permissions=["view"])
    def export_csv(self, request: HttpRequest, queryset: QuerySet[Bet]) -> StreamingHttpResponse:
        return bet_csv_response(request, queryset.order_by("-placed_at", "-id"))

    def get_urls(self) -> list[URLPattern]:
        export = path(
            "export.csv",
            self.admin_site.admin_view(self.export_view),
            name=f"{self.opts.app_label}_{self.opts.model_name}_export",
        )
        return [export, *super().get_urls()]

    def export_view(self, request: HttpRequest) -> HttpResponseBase:
        """Every bet of the list as filtered and searched (its query string), as CSV."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return HttpResponseRedirect(reverse("admin:tables_bet_changelist") + "?e=1")
        return bet_csv_response(request, changelist.queryset)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        query = request.GET.copy()
        query.pop("p", None)
        export_url = reverse("admin:tables_bet_export")
        if query:
            export_url += "?" + query.urlencode()
        return super().changelist_view(request, {"export_url": export_url, **(extra_context or {})})


# ── the audit trail ─────────────────────────────────────────────────────────


class ReadOnlyLogEntryAdmin(ReadOnlyMixin, AuditlogLogEntryAdmin):
    """auditlog's own admin allows deleting entries when another admin page cascades to them; never here.

    "User" is who the entry itself names (``baccarat_site.audit.who``: the username stored when it was made,
    a command's OS user, or the system), linked to the account while it exists; searchable by that name."""

    search_fields = [*AuditlogLogEntryAdmin.search_fields, "additional_data__actor_name", "additional_data__os_user"]

    @admin.display(description="User")
    def user_url(self, obj: LogEntry) -> SafeString | str:
        name = who(obj)
        if obj.actor_id is None:
            return name
        url = reverse(f"admin:{obj.actor._meta.app_label}_{obj.actor._meta.model_name}_change", args=[obj.actor_id])
        return format_html('<a href="{}">{}</a>', url, name)


if admin.site.is_registered(LogEntry):
    admin.site.unregister(LogEntry)
admin.site.register(LogEntry, ReadOnlyLogEntryAdmin)
