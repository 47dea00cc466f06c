"""Operators' admin for variants and tables; shoes, rounds and bets are in ``tables.admin_records``.

Variants are validated by their typed fields, ``Variant.clean`` (no player advantage without the override),
the offered-bets formset (``Variant.offer_errors``: at least one bet, none that can never win with the
variant's decks, a difference limit a minimum bet fits in) and the database constraints behind them, so
nothing unplayable reaches a running table. A table's pace keeps to the ranges of its fields' validators.
A table's status is never edited directly: Pause, Resume and Cancel current round each ask for a reason and
call the live-table services, exactly as the management commands do.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.validators import MaxValueValidator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from baccarat_site import money
from baccarat_site.errors import DomainError
from tables.models import BONUS_MARGINS, LARGEST_STAKE, PAYTABLE_FIELDS, Table, Variant, VariantBet, default_limits
from tables.services import controls

#: The "Preview odds" button of the variant's change form (templates/admin/tables/variant/submit_line.html).
PREVIEW = "_preview"
_NOT_POSTED = object()


def _note(variant: Any, **notes: Any) -> None:
    """Leave what the admin's forms found on the variant they validate (``_admin_<name>``): the formset and
    the odds panel read it, as Django gives them the instance and not the form."""
    for name, value in notes.items():
        setattr(variant, f"_admin_{name}", value)


class TieOddsField(forms.TypedChoiceField):
    """Tie's odds as a select that matches its value however the decimal is written ("9", "9.0", "9.00").

    The options read "8.00" and "9.00" (``tables.models.TIE_ODDS``), as the database stores them; a value
    written otherwise (a variant made in code with ``Decimal(9)``) still marks its option, and a whole number
    posted by hand is taken as its two-place value, so the audit trail never records "9.00 → 9" as a change.
    """

    def prepare_value(self, value: Any) -> Any:
        return _two_places(value)

    def to_python(self, value: Any) -> str:
        return _two_places(super().to_python(value))


def _two_places(value: Any) -> Any:
    """``value`` as "9.00" when it is a number, else unchanged (left for the choice check to refuse)."""
    try:
        return money.text(Decimal(str(value)))
    except (ArithmeticError, ValueError):
        return value


class VariantForm(forms.ModelForm):
    pays_tie = Variant._meta.get_field("pays_tie").formfield(choices_form_class=TieOddsField)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Said before the column's "no more than 12 digits", which an operator has to count out.
        self.fields["pb_difference_limit"].validators.insert(0, MaxValueValidator(LARGEST_STAKE))

    #: Set by VariantAdmin.get_form when the operator pressed "Preview odds": the form never counts as valid,
    #: so the admin saves nothing and shows the page again, with the odds of the posted values.
    preview = False

    def full_clean(self) -> None:
        super().full_clean()
        # Read by the offered-bets formset, which validates after this form with the same instance, and by
        # VariantAdmin.exact_odds (no odds of a half-posted variant).
        _note(self.instance, form_has_errors=bool(self.errors))

    def is_valid(self) -> bool:
        return super().is_valid() and not self.preview

    class Meta:
        model = Variant
        fields = (
            "name",
            "decks",
            "cut_min",
            "cut_max",
            "pb_difference_limit",
            *(f"pays_{name}" for name in PAYTABLE_FIELDS),
            *(f"pays_bonus_margin_{m}" for m in BONUS_MARGINS),
            "allow_player_advantage",
        )


class VariantBetFormSet(forms.BaseInlineFormSet):
    """The offered bets, checked together with the variant they belong to (``Variant.offer_errors``): at least
    one bet, none that can never win with the variant's decks, a difference limit a minimum bet fits in."""

    instance: Variant

    def clean(self) -> None:
        super().clean()
        _note(self.instance, posted_offered=None)  # what VariantAdmin.exact_odds shows after a post: not known yet
        if any(self.errors):
            return  # a row's own errors first: its minimum or type is not known yet
        offered: dict[str, Decimal | None] = {}
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or data.get("DELETE") or not data.get("bet_type"):
                continue
            offered[data["bet_type"]] = data.get("min_stake")
        _note(self.instance, posted_offered=set(offered))
        if getattr(self.instance, "_admin_form_has_errors", False) and offered:
            return  # the variant's own fields are refused: its decks or limit may be the old ones, not the posted
        errors = self.instance.offer_errors(offered)
        if errors:
            raise forms.ValidationError([message for messages_ in errors.values() for message in messages_])


class VariantBetInline(admin.TabularInline):
    model = VariantBet
    formset = VariantBetFormSet
    fields = ("bet_type", "min_stake", "max_stake", "last_shoe_round")
    extra = 0
    verbose_name = "offered bet"
    verbose_name_plural = "offered bets, their limits per round and their shoe-round cut-offs"

    def get_extra(self, request: HttpRequest, obj: Variant | None = None, **kwargs: Any) -> int:
        return len(default_limits()) if obj is None else 1


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    form = VariantForm
    list_display = ("name", "decks", "pb_difference_limit", "pays_tie", "offered", "tables_using")
    search_fields = ("name",)
    inlines = [VariantBetInline]
    readonly_fields = ("exact_odds",)
    fieldsets = (
        (None, {"fields": ("name", "decks", ("cut_min", "cut_max"), "pb_difference_limit")}),
        (
            "Paytable (x of x:1)",
            {"fields": tuple(f"pays_{name}" for name in PAYTABLE_FIELDS)},
        ),
        ("Player/Banker Bonus by winning margin", {"fields": tuple(f"pays_bonus_margin_{m}" for m in BONUS_MARGINS)}),
        ("Exact odds of this variant", {"fields": ("exact_odds", "allow_player_advantage")}),
    )

    def get_formset_kwargs(self, request: HttpRequest, obj: Any, inline: Any, prefix: str) -> dict[str, Any]:
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, VariantBetInline) and obj.pk is None and request.method == "GET":
            from tables.engine import DEFAULT_UNAVAILABLE_AFTER

            kwargs["initial"] = [
                {"bet_type": t, "min_stake": lim["min"], "max_stake": lim["max"]}
                | {"last_shoe_round": DEFAULT_UNAVAILABLE_AFTER.get(t)}
                for t, lim in default_limits().items()
            ]
        return kwargs

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if request.method == "POST" and PREVIEW in request.POST:
            return type(form.__name__, (form,), {"preview": True})
        return form

    @admin.display(description="offered bets")
    def offered(self, obj: Variant) -> int:
        return obj.bets.count()

    @admin.display(description="tables")
    def tables_using(self, obj: Variant) -> str:
        return ", ".join(t.name for t in obj.tables.all()) or "–"

    @admin.display(description="probability, house edge and RTP of every offered bet")
    def exact_odds(self, obj: Variant) -> str:
        """The engine's exact figures for this deck count and paytable: the saved values, or after a post (a
        preview, or a save that was refused) the posted ones, which are not saved."""
        posted: Any = getattr(obj, "_admin_posted_offered", _NOT_POSTED)
        if getattr(obj, "_admin_form_has_errors", False) or posted is None:
            return "Correct the errors on this page to see its exact odds."
        if posted is _NOT_POSTED and obj.pk is None:
            return "Press “Preview odds” to see the exact odds of these settings before saving them."
        from tables.engine import bet_distributions, house_edges

        paytable = obj.engine_paytable()
        edges = house_edges(obj.decks, paytable)
        distributions = bet_distributions(obj.decks, paytable)
        offered = set(obj.limits_dict()["per_type"]) if posted is _NOT_POSTED else set(posted)
        if "banker" in offered:
            offered.add("banker_no_commission")
        rows = []
        for name, distribution in distributions.items():
            if name not in offered:
                continue
            win = sum(p for net, p in distribution.items() if net > 0)
            push = sum(p for net, p in distribution.items() if net == 0)
            edge = edges[name]
            rows.append(
                (
                    name.replace("_", " "),
                    f"{float(win):.4%}",
                    f"{float(push):.4%}",
                    f"{float(edge):.4%}",
                    f"{float(1 - edge):.4%}",
                    "player advantage" if edge < 0 else "",
                )
            )
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><strong>{}</strong></td><td>{}</td><td>{}</td></tr>",
            rows,
        )
        return format_html(
            '<table class="exact-odds"><thead><tr><th>bet</th><th>wins</th><th>pushes</th><th>house edge</th>'
            "<th>RTP</th><th></th></tr></thead><tbody>{}</tbody></table><p>{} decks. Exact, computed by the "
            "engine over every card combination.{}</p>",
            body,
            obj.decks,
            "" if posted is _NOT_POSTED else " Of the settings on this page, which are not saved yet.",
        )


class ReasonForm(forms.Form):
    reason = forms.CharField(
        min_length=3,
        max_length=200,
        help_text="Why: stored with the action in the audit trail and sent to the table's players.",
        widget=forms.TextInput(attrs={"size": 60}),
    )


#: op → (title, service call, success message)
OPERATIONS: dict[str, tuple[str, str]] = {
    "pause": ("Pause table", "Paused"),
    "resume": ("Resume table", "Resumed"),
    "cancel_round": ("Cancel the current round and refund every bet", "Cancelled"),
}


def _operate(op: str, table: Table, reason: str, actor: Any) -> str:
    """Run one operator action through the live-table services; returns what happened, for a message."""
    if op == "pause":
        done = controls.table_pause(table_id=table.pk, reason=reason, actor=actor)
        if not done["paused"]:
            return f"{table}: already paused."
        what = {"cancelled": "its round was cancelled and refunded", "paused": "its round is paused"}
        return f"{table}: paused; {what.get(done['round'] or '', 'no round was live')}."
    if op == "resume":
        done = controls.table_resume(table_id=table.pk, reason=reason, actor=actor)
        return f"{table}: resumed." if done["resumed"] else f"{table}: not resumed (it was not paused)."
    voided = controls.table_round_cancel(table_id=table.pk, reason=reason, actor=actor)
    if voided is None:
        return f"{table}: no live round to cancel."
    live, refunded = voided
    return f"{table}: round {live.number} cancelled, {refunded} bet(s) refunded."


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("name", "variant", "status", "status_reason", "betting_seconds", "operate")
    list_filter = ("status", "variant")
    search_fields = ("name",)
    readonly_fields = ("status", "status_reason", "next_action_at", "created_at")
    fields = (
        "name",
        "variant",
        ("status", "status_reason"),
        ("betting_seconds", "deal_interval_ms", "result_seconds", "settle_delay_ms"),
        ("next_action_at", "created_at"),
    )
    actions = ("pause_tables", "resume_tables", "cancel_rounds")
    change_form_template = "admin/tables/table/change_form.html"

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                f"<int:table_id>/{op.replace('_', '-')}/",
                self.admin_site.admin_view(self.operation_view),
                {"op": op},
                name=f"tables_table_{op}",
            )
            for op in OPERATIONS
        ]
        return own + super().get_urls()

    @admin.display(description="operate")
    def operate(self, obj: Table) -> str:
        return format_html_join(
            " ",
            '<a class="button" href="{}">{}</a>',
            [
                (reverse(f"admin:tables_table_{op}", args=[obj.pk]), title.split(" ")[0])
                for op, (title, _done) in OPERATIONS.items()
            ],
        )

    def operation_view(self, request: HttpRequest, table_id: int, op: str) -> HttpResponse:
        return self._operation(request, op, [get_object_or_404(Table, pk=table_id)])

    def _operation(self, request: HttpRequest, op: str, tables: list[Table]) -> HttpResponse:
        if not self.has_change_permission(request):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        form = ReasonForm(request.POST if request.method == "POST" and "reason" in request.POST else None)
        if form.is_valid():
            for table in tables:
                try:
                    self.message_user(request, _operate(op, table, form.cleaned_data["reason"], request.user))
                except DomainError as error:
                    self.message_user(request, f"{table}: {error.detail}", level=messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tables_table_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "title": OPERATIONS[op][0],
            "tables": tables,
            "form": form,
            "op": op,
            "opts": self.model._meta,
            "ids": ",".join(str(t.pk) for t in tables),
        }
        return TemplateResponse(request, "admin/tables/table/operation.html", context)

    def _bulk(self, request: HttpRequest, queryset: QuerySet[Table], op: str) -> HttpResponse:
        return self._operation(request, op, list(queryset))

    @admin.action(description="Pause the selected tables…", permissions=["change"])
    def pause_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "pause")

    @admin.action(description="Resume the selected tables…", permissions=["change"])
    def resume_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "resume")

    @admin.action(description="Cancel the current round of the selected tables and refund…", permissions=["change"])
    def cancel_rounds(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "cancel_round")


# The read-only records (shoes, rounds, bets) and the audit trail.
from tables import admin_records, admin_risk  # noqa: E402, F401
