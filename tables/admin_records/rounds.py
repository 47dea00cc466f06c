"""Rounds, read-only: a round's page is its recall for a dispute.

Its cards as faces in deal order with the running totals and the time each was dealt, the result and its flags,
who paused, resumed or cancelled it and why (the audit trail, :func:`tables.selectors.recall.round_actions`),
the terms it opened with (``Round.terms``) and every bet with its terms (type, mode, amount, the odds it was
taken at) and outcome (status, payout). Filters by table, state and date; search by round id.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from baccarat_site import money
from baccarat_site.adminkit import ReadOnlyAdmin
from tables.admin_records.display import WINNERS, card_face, card_faces, change_link, hand_codes, id_term, short_faces
from tables.engine import BET_TYPES
from tables.engine.display import odds_label, payout_label
from tables.engine.payouts import Paytable
from tables.models import PAYTABLE_FIELDS, Round
from tables.selectors.outcomes import bet_payout
from tables.selectors.recall import round_actions
from tables.selectors.tables import cards_with_totals

FLAG_LABELS = (
    ("player_pair", "Player pair"),
    ("banker_pair", "Banker pair"),
    ("player_perfect_pair", "Player perfect pair"),
    ("banker_perfect_pair", "Banker perfect pair"),
    ("player_natural", "Player natural"),
    ("banker_natural", "Banker natural"),
    ("lucky_six", "Lucky six"),
)


def _money(value: Decimal | None) -> str:
    return "—" if value is None else money.display(value)


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
        round_id = id_term(search_term)
        return (queryset.filter(pk=round_id) if round_id is not None else queryset.none()), False

    @admin.display(description="Shoe", ordering="shoe__number")
    def shoe_number(self, round_: Round) -> int:
        return round_.shoe.number

    @admin.display(description="Cards")
    def cards_short(self, round_: Round) -> SafeString:
        return short_faces(round_.cards)

    @admin.display(description="Winner", ordering="winner")
    def winner_display(self, round_: Round) -> str:
        return WINNERS.get(round_.winner, "—")

    @admin.display(description="Table")
    def table_link(self, round_: Round) -> SafeString:
        return change_link(round_.table)

    @admin.display(description="Shoe")
    def shoe_link(self, round_: Round) -> SafeString:
        return change_link(round_.shoe, f"Shoe {round_.shoe.number}")

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
                "faces": card_faces(hand_codes(dealt, name)),
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
