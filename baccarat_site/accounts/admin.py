"""Players and sign-ins in the admin. Sign-ins are read-only: who signed in when, from which address, browser and
device (what a linked-accounts risk alert rests on). Players are listed with whether their play is stopped; staff
with ``accounts.suspend_player`` (Supervisors) suspend, reinstate and close accounts through the services.

Django's user admin keeps one change: a user who is the actor of audit entries cannot be deleted. The audit trail is
append-only (``baccarat_site/audit.py``); deleting such a user would null the entries' actor, which the database
refuses. The delete page lists those entries as protected and says to deactivate the account instead (untick
*Active*), as it does for any protected object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from auditlog.models import LogEntry
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from baccarat_site.accounts import selectors, services
from baccarat_site.accounts.models import Player, PlayLimit, Restriction, SignIn
from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError


@admin.register(SignIn)
class SignInAdmin(ReadOnlyAdmin):
    list_display = ("at", "user", "method", "ip_address", "device_id", "user_agent")
    list_filter = ("method",)
    list_select_related = ("user",)
    search_fields = ("user__username", "=ip_address", "=device_id")
    search_help_text = "A username, or an exact address or device id: everyone who signed in from it."
    date_hierarchy = "at"
    show_full_result_count = False


# ── players: their stops ────────────────────────────────────────────────────


class PlayerActionForm(forms.Form):
    reason = forms.CharField(
        min_length=3,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text="Why: kept with the player's record and in the audit trail.",
    )


#: action → (title, service, past tense for the message)
PLAYER_ACTIONS: dict[str, tuple[str, Callable[..., Any], str]] = {
    "suspend": ("Suspend the selected players", services.player_suspend, "suspended"),
    "reinstate": ("Reinstate the selected players", services.player_reinstate, "reinstated"),
    "close_account": ("Close the selected players' accounts", services.player_close, "closed"),
}


if TYPE_CHECKING:  # Django's admin classes are generic only in django-stubs.
    _RestrictionInlineBase = admin.TabularInline[Restriction, Player]
    _PlayLimitInlineBase = admin.TabularInline[PlayLimit, Player]
else:
    _RestrictionInlineBase = admin.TabularInline
    _PlayLimitInlineBase = admin.TabularInline


class RestrictionInline(_RestrictionInlineBase):
    model = Restriction
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = ("kind", "starts_at", "ends_at", "reason", "created_by", "lifted_at", "lifted_by", "lift_reason")
    readonly_fields = fields
    verbose_name_plural = "restrictions: suspensions, closures, time-outs and self-exclusions"

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class PlayLimitInline(_PlayLimitInlineBase):
    """The player's responsible-gaming limits and every change to them, newest first, read-only
    (``accounts.limits``): only the player sets them."""

    model = PlayLimit
    fk_name = "user"
    extra = 0
    can_delete = False
    fields = ("kind", "value", "requested_at", "applies_at", "cancelled_at", "state")
    readonly_fields = fields
    ordering = ("-id",)
    verbose_name_plural = "play limits the player set (history, newest first; looser ones wait 24 hours)"

    @admin.display(description="State")
    def state(self, row: PlayLimit) -> str:
        if row.cancelled_at is not None:
            return "replaced before it applied"
        if row.applies_at > timezone.now():
            return f"pending until {row.applies_at:%Y-%m-%d %H:%M} UTC"
        newer = PlayLimit.objects.filter(
            user_id=row.user_id, kind=row.kind, cancelled_at__isnull=True, id__gt=row.pk, applies_at__lte=timezone.now()
        )
        return "superseded" if newer.exists() else "in force"

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    """Players (not staff): who they are, whether their play is stopped and why, with Suspend, Reinstate and
    Close account for staff with ``accounts.suspend_player`` (each through ``accounts.services``, audited)."""

    list_display = ("username", "play", "date_joined", "last_login")
    search_fields = ("username", "email")
    fields = ("username", "email", "date_joined", "last_login", "play")
    readonly_fields = fields
    inlines = (RestrictionInline, PlayLimitInline)
    actions = tuple(PLAYER_ACTIONS)

    @admin.display(description="Play")
    def play(self, player: Player) -> str:
        stop = selectors.active_restriction(user_id=player.pk)
        if stop is None:
            return "allowed"
        until = f" until {stop.ends_at:%Y-%m-%d %H:%M} UTC" if stop.ends_at else ""
        return f"stopped: {stop.get_kind_display().lower()}{until}"

    def has_suspend_player_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("accounts.suspend_player")

    @admin.action(description="Suspend the selected players…", permissions=["suspend_player"])
    def suspend(self, request: HttpRequest, queryset: QuerySet[Player]) -> HttpResponse | None:
        return self._act(request, queryset, "suspend")

    @admin.action(description="Reinstate the selected players…", permissions=["suspend_player"])
    def reinstate(self, request: HttpRequest, queryset: QuerySet[Player]) -> HttpResponse | None:
        return self._act(request, queryset, "reinstate")

    @admin.action(description="Close the selected players' accounts…", permissions=["suspend_player"])
    def close_account(self, request: HttpRequest, queryset: QuerySet[Player]) -> HttpResponse | None:
        return self._act(request, queryset, "close_account")

    def _act(self, request: HttpRequest, queryset: QuerySet[Player], name: str) -> HttpResponse | None:
        title, service, done = PLAYER_ACTIONS[name]
        players = list(queryset.order_by("pk"))
        form = PlayerActionForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for player in players:
                try:
                    service(user=player, reason=form.cleaned_data["reason"], actor=request.user)
                except DomainError as error:
                    self.message_user(request, f"{player}: {error.detail}", messages.ERROR)
                else:
                    self.message_user(request, f"{player}: {done}.", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "form": form,
            "players": players,
            "action": name,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/accounts/player/action.html", context)


# ── staff and players as users: deleting an actor is refused ──────────────

User = get_user_model()


class AuditedUserAdmin(UserAdmin):
    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, ...]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        ids = [obj.pk for obj in objs] if not isinstance(objs, QuerySet) else list(objs.values_list("pk", flat=True))
        entries = LogEntry.objects.filter(actor_id__in=ids).select_related("actor").order_by("-timestamp")
        count = entries.count()
        if count:
            names = sorted({entry.actor.get_username() for entry in entries[:1000] if entry.actor is not None})
            protected = [
                *protected,
                f"{count} audit entr{'y' if count == 1 else 'ies'} made by {', '.join(names)}: the trail is kept "
                "unchanged, so deactivate the account (untick Active) instead of deleting it",
            ]
            perms_needed = set()  # refused whatever the rights: say why, not which rights are missing
        return deleted, counts, perms_needed, protected


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AuditedUserAdmin)
