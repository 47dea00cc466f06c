"""Shoes, read-only: the commitment, the seed once revealed (never the live seed or order), the burn, the
rounds, and for a finished shoe a verification recomputed with :mod:`tables.engine.fair`."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from baccarat_site.adminkit import ReadOnlyAdmin
from tables.admin_records.display import WINNERS, card_face, short_faces
from tables.models import Shoe
from tables.selectors.shoes import shoe_verification


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
                round_.faces = short_faces(round_.cards)  # type: ignore[attr-defined]
                round_.winner_label = WINNERS.get(round_.winner, "—")  # type: ignore[attr-defined]
            context["shoe_rounds"] = rounds
        return super().render_change_form(request, context, add, change, form_url, obj)
