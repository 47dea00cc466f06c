"""Risk alerts in the admin: the changelist (who, what, links to the round and the players) and Acknowledge.

Alerts are raised by ``tables.services.risk`` and never edited here. **Acknowledge** (a button per open alert,
or the list action for several) asks for an optional note and calls
``tables.services.risk.risk_alert_acknowledge``, which records who and when and writes the audit entry. It needs
``tables.acknowledge_riskalert`` (Table operators, Supervisors: ``baccarat_site/roles.py``); Auditors only view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from baccarat_site.money import display
from tables.models import RiskAlert
from tables.selectors.risk import alerts_with_links
from tables.services import risk

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ACKNOWLEDGE_PERMISSION = "tables.acknowledge_riskalert"
MAX_ALERTS_PER_ACTION = 100


class AcknowledgeForm(forms.Form):
    note = forms.CharField(
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="Optional: what you found or did. Kept with the alert and in the audit trail.",
    )


def player_links(request: HttpRequest, alert: RiskAlert) -> list[tuple[str, str | None]]:
    """``[(username, url or None)]`` for the alert's players: the wallet's admin page for staff who may see
    wallets, else the user's page for staff who may see users, else no link."""
    out: list[tuple[str, str | None]] = []
    for user in (alert.user, alert.other_user):
        if user is None:
            continue
        url = None
        try:
            wallet = user.wallet
        except ObjectDoesNotExist:
            wallet = None
        if wallet is not None and request.user.has_perm("wallets.view_wallet"):
            url = reverse("admin:wallets_wallet_change", args=[wallet.pk])
        elif request.user.has_perm("auth.view_user"):
            url = reverse("admin:auth_user_change", args=[user.pk])
        out.append((user.get_username(), url))
    return out


def round_link(request: HttpRequest, alert: RiskAlert) -> str | None:
    if not request.user.has_perm("tables.view_round"):
        return None
    return reverse("admin:tables_round_change", args=[alert.round_id])


def acknowledge_link(request: HttpRequest, alert: RiskAlert) -> str | None:
    if not alert.is_open or not request.user.has_perm(ACKNOWLEDGE_PERMISSION):
        return None
    return reverse("admin:tables_riskalert_acknowledge", args=[alert.pk])


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", "Open"), ("acknowledged", "Acknowledged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[RiskAlert]) -> QuerySet[RiskAlert]:
        if self.value() == "open":
            return queryset.filter(acknowledged_at__isnull=True)
        if self.value() == "acknowledged":
            return queryset.filter(acknowledged_at__isnull=False)
        return queryset


@admin.register(RiskAlert)
class RiskAlertAdmin(ReadOnlyAdmin):
    list_display_links = None
    list_filter = (StatusFilter, "kind", "table")
    search_fields = ("user__username", "other_user__username", "detail")
    search_help_text = "A username, or words of what happened."
    date_hierarchy = "created_at"
    fields = (
        "kind",
        "table",
        "round_display",
        "players",
        "detail",
        "amount_display",
        "created_at",
        "status",
        "note",
    )
    readonly_fields = fields
    actions = ("acknowledge_alerts",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[RiskAlert]:
        return alerts_with_links()

    def has_acknowledge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(ACKNOWLEDGE_PERMISSION)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:alert_id>/acknowledge/",
                self.admin_site.admin_view(self.acknowledge_view),
                name="tables_riskalert_acknowledge",
            )
        ]
        return own + super().get_urls()

    def get_list_display(self, request: HttpRequest) -> tuple[Any, ...]:
        """The columns; the links in them depend on what the viewing staff member may open."""

        @admin.display(description="round", ordering="round_id")
        def round_(alert: RiskAlert) -> str:
            text = f"shoe {alert.round.shoe.number} · round {alert.round.number}"
            url = round_link(request, alert)
            return format_html('<a href="{}">{}</a>', url, text) if url else text

        @admin.display(description="who")
        def who(alert: RiskAlert) -> str:
            links = player_links(request, alert)
            if not links:
                return "—"
            cells = ((format_html('<a href="{}">{}</a>', url, name) if url else name,) for name, url in links)
            return format_html_join(", ", "{}", cells)

        @admin.display(description="status", ordering="acknowledged_at")
        def status(alert: RiskAlert) -> str:
            url = acknowledge_link(request, alert)
            if url:
                return format_html('Open <a class="button" href="{}">Acknowledge</a>', url)
            return self.status(alert)

        return ("created_at", "kind", "table", round_, who, "detail", "amount_display", status)

    @admin.display(description="round", ordering="round_id")
    def round_display(self, alert: RiskAlert) -> str:
        text = f"shoe {alert.round.shoe.number} · round {alert.round.number}"
        return format_html('<a href="{}">{}</a>', reverse("admin:tables_round_change", args=[alert.round_id]), text)

    @admin.display(description="who")
    def players(self, alert: RiskAlert) -> str:
        return ", ".join(u.get_username() for u in (alert.user, alert.other_user) if u is not None) or "—"

    @admin.display(description="amount", ordering="amount")
    def amount_display(self, alert: RiskAlert) -> str:
        return display(alert.amount)

    @admin.display(description="status", ordering="acknowledged_at")
    def status(self, alert: RiskAlert) -> str:
        if alert.is_open:
            return "Open"
        note = f": {alert.note}" if alert.note else ""
        return f"Acknowledged by {alert.acknowledged_by} at {alert.acknowledged_at:%Y-%m-%d %H:%M} UTC{note}"

    # ── acknowledging ──

    @admin.action(description="Acknowledge the selected alerts…", permissions=["acknowledge"])
    def acknowledge_alerts(self, request: HttpRequest, queryset: QuerySet[RiskAlert]) -> HttpResponse | None:
        alerts = list(
            queryset.filter(acknowledged_at__isnull=True).order_by("-created_at")[: MAX_ALERTS_PER_ACTION + 1]
        )
        if not alerts:
            self.message_user(request, "The selected alerts are already acknowledged.", messages.WARNING)
            return None
        if len(alerts) > MAX_ALERTS_PER_ACTION:
            self.message_user(request, f"Select at most {MAX_ALERTS_PER_ACTION} open alerts at once.", messages.ERROR)
            return None
        return self._acknowledge(request, alerts, from_action=True)

    def acknowledge_view(self, request: HttpRequest, alert_id: int) -> HttpResponse:
        return self._acknowledge(request, [get_object_or_404(alerts_with_links(), pk=alert_id)], from_action=False)

    def _acknowledge(self, request: HttpRequest, alerts: list[RiskAlert], *, from_action: bool) -> HttpResponse:
        if not self.has_acknowledge_permission(request):
            raise PermissionDenied
        submitted = request.method == "POST" and "apply" in request.POST
        form = AcknowledgeForm(request.POST if submitted else None)
        if submitted and form.is_valid():
            for alert in alerts:
                try:
                    risk.risk_alert_acknowledge(
                        alert_id=alert.pk, actor=cast("User", request.user), note=form.cleaned_data["note"]
                    )
                except DomainError as error:
                    self.message_user(request, f"Alert {alert.pk}: {error.detail}", messages.WARNING)
                else:
                    self.message_user(request, f"Acknowledged: {alert.detail}", messages.SUCCESS)
            back = request.GET.get("next", "")
            if back == "floor":
                return HttpResponseRedirect(reverse("admin_floor:floor_live"))
            return HttpResponseRedirect(reverse("admin:tables_riskalert_changelist") + "?status=open")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Acknowledge risk alert" + ("s" if len(alerts) > 1 else ""),
            "alerts": alerts,
            "form": form,
            "from_action": from_action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/tables/riskalert/acknowledge.html", context)
