"""Operators' admin for variants and tables; shoes, rounds and bets are in ``tables.admin_records``.

Variants are validated by their typed fields, ``Variant.clean`` (no player advantage without the override),
the offered-bets formset (``Variant.offer_errors``: at least one bet, none that can never win with the
variant's decks, a difference limit a minimum bet fits in) and the database constraints behind them, so
nothing unplayable reaches a running table. A table's pace keeps to the ranges of its fields' validators.
A table's status is never edited directly: Pause, Resume, Cancel current round, Close (end of round / end of
shoe), Reopen, Retire and Un-retire each ask for a reason and call the live-table services
(``tables.services.controls``), exactly as the management commands do. A table's own limits (``TableLimit``
rows, its difference limit) may only narrow its variant's.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.validators import MaxValueValidator
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from baccarat_site import money, roles
from baccarat_site.errors import DomainError
from tables.engine import DEFAULT_UNAVAILABLE_AFTER, bet_distributions, house_edge_text, house_edges, rtp_text
from tables.models import (
    BONUS_MARGINS,
    LARGEST_STAKE,
    PAYTABLE_FIELDS,
    Table,
    TableLimit,
    Variant,
    VariantBet,
    default_limits,
)
from tables.selectors.supervisor import has_open_call
from tables.services import controls

if TYPE_CHECKING:
    from django.contrib.auth.models import User

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
        # Said before the column's "no more than 12 digits", which an operator has to count out. Absent from a
        # view-only form (an auditor's: every field is read-only there).
        if "pb_difference_limit" in self.fields:
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
                    house_edge_text(edge, places=4),  # as the rules page writes them, to four places
                    rtp_text(edge, places=4),
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
        help_text="Why: stored with the action in the audit trail and shown in the admin. Players never see it: "
        "they are told a fixed message (“Paused”, “Closing after this round”, “Closed”).",
        widget=forms.TextInput(attrs={"size": 60}),
    )


#: op → (title, the button's label)
OPERATIONS: dict[str, tuple[str, str]] = {
    "pause": ("Pause table", "Pause"),
    "resume": ("Resume table", "Resume"),
    "cancel_round": ("Cancel the current round and refund every bet", "Cancel round"),
    "close_round": ("Close the table at the end of the current round", "Close after round"),
    "close_shoe": ("Close the table at the end of the current shoe", "Close after shoe"),
    "reopen": ("Reopen the table (or call off its close)", "Reopen"),
    "retire": ("Retire the closed table", "Retire"),
    "unretire": ("Take the table out of retirement (it comes back closed)", "Un-retire"),
}


def _operate(op: str, table: Table, reason: str, actor: User) -> str:
    """Run one operator action through the live-table services; returns what happened, for a message."""
    if op == "pause":
        done = controls.table_pause(table_id=table.pk, reason=reason, actor=actor)
        if not done["paused"]:
            return f"{table}: not paused (it is {table.status}; only an open table can be paused)."
        what = {"cancelled": "its round was cancelled and refunded", "paused": "its round is paused"}
        return f"{table}: paused; {what.get(done['round'] or '', 'no round was live')}."
    if op == "resume":
        if has_open_call(table.pk):
            # A plain resume would leave the call open: the supervisor answers it (and so resumes) on the floor.
            raise DomainError(
                "Not resumed: it waits for its supervisor. Answer the call on the live floor.", code="supervisor_call"
            )
        done = controls.table_resume(table_id=table.pk, reason=reason, actor=actor)
        return f"{table}: resumed." if done["resumed"] else f"{table}: not resumed (it was not paused)."
    if op in ("close_round", "close_shoe"):
        when = op.removeprefix("close_")
        done = controls.table_close(table_id=table.pk, when=when, reason=reason, actor=actor)
        if done["closed"]:
            return f"{table}: closed (no round was under way)."
        if done["closing"]:
            return f"{table}: closes at the end of the current {when}; no new round opens after it."
        return f"{table}: already closed."
    if op == "reopen":
        done = controls.table_reopen(table_id=table.pk, reason=reason, actor=actor)
        if done["reopened"]:
            if not table.within_hours(timezone.now()):
                return f"{table}: reopened, but outside its opening hours it waits for them (clear them to open now)."
            return f"{table}: reopened; its next round opens now."
        if done["close_called_off"]:
            return f"{table}: its close is called off; it stays open."
        return f"{table}: not reopened (it was not closed)."
    if op == "retire":
        retired = controls.table_retire(table_id=table.pk, reason=reason, actor=actor)
        return f"{table}: retired; players no longer see it." if retired else f"{table}: already retired."
    if op == "unretire":
        back = controls.table_unretire(table_id=table.pk, reason=reason, actor=actor)
        return f"{table}: out of retirement, closed; Reopen opens it." if back else f"{table}: was not retired."
    voided = controls.table_round_cancel(table_id=table.pk, reason=reason, actor=actor)
    if voided is None:
        return f"{table}: no live round to cancel."
    live, refunded = voided
    return f"{table}: round {live.number} cancelled, {refunded} bet(s) refunded."


class TableLimitInline(admin.TabularInline):
    """A table's own limits per bet type: a higher minimum, a lower maximum, never wider than the variant's
    (``TableLimit.clean`` refuses a widening with a message)."""

    model = TableLimit
    fields = ("bet_type", "min_stake", "max_stake")
    extra = 0
    verbose_name = "narrower limit"
    verbose_name_plural = "this table's own limits per round (only narrower than the variant's; empty: the variant's)"


def dealers(*, also: int | None = None) -> QuerySet[Any]:
    """The staff who may be a live table's dealer: active staff in the Dealers group (and the user ``also``)."""
    eligible = Q(is_active=True, is_staff=True, groups__name=roles.DEALERS)
    if also is not None:
        eligible |= Q(pk=also)
    return get_user_model().objects.filter(eligible).distinct().order_by("username")


class DealerChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        full = obj.get_full_name()
        return f"{obj.get_username()} ({full})" if full else obj.get_username()


def _table_formfield(db_field: Any, **kwargs: Any) -> Any:
    """A table field's form field; a stream URL typed without a scheme is an https one."""
    if db_field.name == "video_url":
        kwargs["assume_scheme"] = "https"
    return db_field.formfield(**kwargs)


class TableForm(forms.ModelForm):
    """The table's settings. Its dealer is chosen among the active staff in the Dealers group; the one on shift is
    listed too even when not one (a supervisor may take a shift at the console), and kept as long as nobody picks
    another. ``Table.clean`` refuses a change of ``dealing`` unless the table is closed or retired."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields.get("dealer")
        if field is not None:
            self.fields["dealer"] = DealerChoiceField(
                queryset=dealers(also=self.instance.dealer_id),
                required=False,
                label=field.label,
                help_text=field.help_text,
                empty_label="– nobody on shift –",
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what ModelForm.clean returns (its stub says "or None")
        dealer = data.get("dealer")
        changed = {"dealer", "dealing"} & set(self.changed_data)
        if (
            dealer is not None
            and changed
            and data.get("dealing") == Table.Dealing.LIVE
            and not dealers().filter(pk=dealer.pk).exists()
        ):
            self.add_error(
                "dealer",
                f"{dealer.get_username()} cannot deal: a live table's dealer must be an active staff member in the "
                f"{roles.DEALERS} group.",
            )
        return data

    class Meta:
        model = Table
        formfield_callback = _table_formfield
        # The admin passes the fields of its fieldsets; these are the editable ones.
        fields = (
            "name",
            "variant",
            "opens_at",
            "closes_at",
            "pb_difference_limit",
            "betting_seconds",
            "deal_interval_ms",
            "result_seconds",
            "settle_delay_ms",
            "dealing",
            "dealer",
            "video_url",
            "dealer_timeout_seconds",
        )


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    form = TableForm
    list_display = ("name", "variant", "status", "closing", "status_reason", "dealing", "dealer", "hours", "operate")
    list_filter = ("status", "dealing", "variant")
    list_select_related = ("variant", "dealer")
    search_fields = ("name",)
    readonly_fields = ("status", "status_reason", "close_after", "closed_by", "next_action_at", "created_at")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "name",
                    "variant",
                    ("status", "status_reason"),
                    ("close_after", "closed_by"),
                    ("opens_at", "closes_at"),
                    "pb_difference_limit",
                    ("betting_seconds", "deal_interval_ms", "result_seconds", "settle_delay_ms"),
                    ("next_action_at", "created_at"),
                )
            },
        ),
        (
            "Live dealer",
            {
                "fields": ("dealing", "dealer", "video_url", "dealer_timeout_seconds"),
                "description": "Where the cards come from. A live table is dealt by a dealer scanning a physical "
                "shoe at the dealer's console; how a table is dealt changes only while it is closed.",
            },
        ),
    )
    inlines = [TableLimitInline]
    actions = (
        "pause_tables",
        "resume_tables",
        "cancel_rounds",
        "close_tables_after_round",
        "close_tables_after_shoe",
        "reopen_tables",
        "retire_tables",
    )

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "video_url":
            kwargs["assume_scheme"] = "https"  # a stream URL typed without a scheme is an https one
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description="closing")
    def closing(self, obj: Table) -> str:
        return obj.get_close_after_display() if obj.close_after else "–"

    @admin.display(description="hours (UTC)")
    def hours(self, obj: Table) -> str:
        if not obj.has_hours:
            return "always"
        return f"{obj.opens_at:%H:%M}–{obj.closes_at:%H:%M}"

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

    def get_list_display(self, request: HttpRequest) -> Any:
        """The operate buttons only for staff who may use them (an auditor reads the list without them)."""
        shown = super().get_list_display(request)
        return shown if self.has_change_permission(request) else tuple(f for f in shown if f != "operate")

    @admin.display(description="operate")
    def operate(self, obj: Table) -> str:
        return format_html_join(
            " ",
            '<a class="button" href="{}">{}</a>',
            [
                (reverse(f"admin:tables_table_{op}", args=[obj.pk]), label)
                for op, (_title, label) in OPERATIONS.items()
                if op in self._operations_for(obj)
            ],
        )

    @staticmethod
    def _operations_for(table: Table) -> tuple[str, ...]:
        """The operations that make sense for the table's status (the services refuse the others anyway)."""
        status = Table.Status
        return {
            status.OPEN: ("pause", "cancel_round", "close_round", "close_shoe", "reopen"),
            status.PAUSED: ("resume", "cancel_round", "close_round", "close_shoe", "reopen"),
            status.CLOSED: ("reopen", "retire"),
            status.RETIRED: ("unretire",),
        }.get(Table.Status(table.status), tuple(OPERATIONS))

    def operation_view(self, request: HttpRequest, table_id: int, op: str) -> HttpResponse:
        return self._operation(request, op, [get_object_or_404(Table, pk=table_id)])

    def _operation(self, request: HttpRequest, op: str, tables: list[Table]) -> HttpResponse:
        if not self.has_change_permission(request):
            raise PermissionDenied
        form = ReasonForm(request.POST if request.method == "POST" and "reason" in request.POST else None)
        if form.is_valid():
            for table in tables:
                try:
                    self.message_user(
                        request, _operate(op, table, form.cleaned_data["reason"], cast("User", request.user))
                    )
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

    @admin.action(description="Close the selected tables at the end of their round…", permissions=["change"])
    def close_tables_after_round(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "close_round")

    @admin.action(description="Close the selected tables at the end of their shoe…", permissions=["change"])
    def close_tables_after_shoe(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "close_shoe")

    @admin.action(description="Reopen the selected tables…", permissions=["change"])
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "reopen")

    @admin.action(description="Retire the selected closed tables…", permissions=["change"])
    def retire_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return self._bulk(request, queryset, "retire")


# The read-only records (shoes, rounds, bets) and the audit trail.
from tables import admin_chat, admin_records, admin_risk, admin_supervisor  # noqa: E402, F401
