"""Players and sign-ins in the admin. Sign-ins are read-only: who signed in when, from which address, browser and
device (what a linked-accounts risk alert rests on). Players are listed with whether their play is stopped; staff
with ``accounts.suspend_player`` (Supervisors) suspend, reinstate and close accounts through the services.

Players' personal limits: Supervisors set them (``accounts.add_playerlimit`` / ``change_playerlimit``), Auditors
read them, nobody else sees them. Every save asks for a reason and goes through
``accounts.services.player_limit_set``, which writes the audit entry (who, the limit before and after, why). A
limit is never deleted: it is cleared by emptying it, with a reason, like any other change.

Django's user admin keeps two changes. Groups that would give one person conflicting roles (``baccarat_site.roles``:
Dealers or Auditors with any other role, Supervisors with Cashiers) are refused on the user's form, with the
conflict named (and in code by an ``m2m_changed`` receiver, ``accounts.signals.groups_changing``). And a user who
is the actor of audit entries cannot be deleted. The audit trail is
append-only (``baccarat_site/audit.py``); deleting such a user would null the entries' actor, which the database
refuses. The delete page lists those entries as protected and says to deactivate the account instead (untick
*Active*), as it does for any protected object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from auditlog.models import LogEntry
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from baccarat_site import money
from baccarat_site.accounts import selectors, services
from baccarat_site.accounts.models import Player, PlayerLimit, PlayerNote, PlayLimit, Restriction, SignIn
from baccarat_site.accounts.services import MAX_PERSONAL_STAKE, REASON_MAX, REASON_MIN, player_limit_set
from baccarat_site.adminkit import ReadOnlyAdmin
from baccarat_site.errors import DomainError
from baccarat_site.roles import role_conflict_message, role_conflicts
from wallets.forms import AmountField
from wallets.models import Wallet

if TYPE_CHECKING:
    from django.contrib.auth.models import User as AuthUser


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


class PlayerNoteForm(forms.Form):
    note = forms.CharField(
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="What you saw or did: kept on the player's page, with your name, and in the audit trail.",
    )


def _stop(service: Callable[..., Any]) -> Callable[..., Any]:
    """A suspend, reinstate or close service called with the action form's reason."""
    return lambda *, player, data, actor: service(user=player, reason=data["reason"], actor=actor)


def _note(*, player: Player, data: dict[str, Any], actor: AuthUser | None) -> Any:
    return services.player_note_add(player=player, text=data["note"], actor=actor)


#: action → (title, service, past tense for the message, form)
PLAYER_ACTIONS: dict[str, tuple[str, Callable[..., Any], str, type[forms.Form]]] = {
    "suspend": ("Suspend the selected players", _stop(services.player_suspend), "suspended", PlayerActionForm),
    "reinstate": ("Reinstate the selected players", _stop(services.player_reinstate), "reinstated", PlayerActionForm),
    "close_account": ("Close the selected players' accounts", _stop(services.player_close), "closed", PlayerActionForm),
    "add_note": ("Add a note to the selected players", _note, "noted", PlayerNoteForm),
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


if TYPE_CHECKING:
    _PlayerNoteInlineBase = admin.TabularInline[PlayerNote, Player]
else:
    _PlayerNoteInlineBase = admin.TabularInline


class PlayerNoteInline(_PlayerNoteInlineBase):
    model = PlayerNote
    fk_name = "player"
    extra = 0
    can_delete = False
    fields = ("created_at", "author", "text")
    readonly_fields = fields
    verbose_name_plural = "staff notes (add one with the list's “Add a note” action)"


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
    """A player's page for staff: who they are, their balance with links to their ledger and bets, their recent
    sign-ins, whether their play is stopped and why (every restriction), and staff notes. Suspend, Reinstate and
    Close account for staff with ``accounts.suspend_player``, Add a note with ``accounts.add_playernote``; each
    through ``accounts.services``, audited."""

    list_display = ("username", "play", "date_joined", "last_login")
    search_fields = ("username", "email")
    fields = (
        "username",
        "email",
        ("date_joined", "last_login"),
        "play",
        "wallet",
        "recent_sign_ins",
        "linked_accounts",
    )
    readonly_fields = (
        "username",
        "email",
        "date_joined",
        "last_login",
        "play",
        "wallet",
        "recent_sign_ins",
        "linked_accounts",
    )
    inlines = (RestrictionInline, PlayLimitInline, PlayerNoteInline)
    actions = tuple(PLAYER_ACTIONS)

    @admin.display(description="Money")
    def wallet(self, player: Player) -> str:
        wallet = Wallet.objects.filter(user=player).first()
        if wallet is None:
            return "no wallet yet"
        links = [
            ("Ledger", reverse("admin:wallets_ledgerentry_changelist") + f"?wallet__id__exact={wallet.pk}"),
            ("Bets", reverse("admin:tables_bet_changelist") + f"?q={player.get_username()}"),
        ]
        return format_html(
            "{} {} · {}",
            money.display(wallet.balance),
            wallet.currency,
            format_html_join(" · ", '<a href="{}">{}</a>', [(url, name) for name, url in links]),
        )

    @admin.display(description="Recent sign-ins")
    def recent_sign_ins(self, player: Player) -> str:
        rows = SignIn.objects.filter(user=player)[:10]
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (f"{row.at:%Y-%m-%d %H:%M:%S} UTC", row.get_method_display(), row.ip_address or "—", row.user_agent)
                for row in rows
            ),
        )
        every = reverse("admin:accounts_signin_changelist") + f"?q={player.get_username()}"
        return format_html(
            "<table><thead><tr><th>When</th><th>How</th><th>Address</th><th>Browser</th></tr></thead>"
            '<tbody>{}</tbody></table><a href="{}">Every sign-in</a>',
            body or mark_safe("<tr><td colspan=4>none yet</td></tr>"),  # a constant: nothing to escape
            every,
        )

    @admin.display(description="Linked accounts")
    def linked_accounts(self, player: Player) -> str:
        """The other accounts that look like this person's (``accounts.selectors.linked_accounts_of``): by a
        device or a recent address their sign-ins shared, or a name or e-mail with the same key."""
        rows = selectors.linked_accounts_of(user=player)
        names = {"device": "device", "address": "address", "name": "name or e-mail"}
        body = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td></tr>',
            (
                (
                    reverse("admin:accounts_player_change", args=[row.user_id]),
                    row.username,
                    ", ".join(names[v] for v in row.via),
                    (
                        "stopped: "
                        + Restriction.Kind(row.stop_kind).label.lower()
                        + (f" until {row.stop_ends_at:%Y-%m-%d %H:%M} UTC" if row.stop_ends_at else "")
                    )
                    if row.stop_kind
                    else "allowed",
                )
                for row in rows
            ),
        )
        return format_html(
            "<table><thead><tr><th>Account</th><th>Linked by</th><th>Play</th></tr></thead><tbody>{}</tbody></table>",
            body or mark_safe("<tr><td colspan=3>none</td></tr>"),  # a constant: nothing to escape
        )

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

    def has_add_playernote_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("accounts.add_playernote")

    @admin.action(description="Add a note to the selected players…", permissions=["add_playernote"])
    def add_note(self, request: HttpRequest, queryset: QuerySet[Player]) -> HttpResponse | None:
        return self._act(request, queryset, "add_note")

    def _act(self, request: HttpRequest, queryset: QuerySet[Player], name: str) -> HttpResponse | None:
        title, service, done, form_class = PLAYER_ACTIONS[name]
        players = list(queryset.order_by("pk"))
        form = form_class(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for player in players:
                try:
                    service(player=player, data=form.cleaned_data, actor=request.user)
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


class StaffUserChangeForm(UserChangeForm):
    """Django's user form, refusing groups that give one person conflicting roles (``baccarat_site.roles.CONFLICTS``:
    Dealers and Auditors with any other role, Supervisors with Cashiers), with the conflict named."""

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        groups = cleaned.get("groups")
        if groups is not None:
            pairs = role_conflicts(group.name for group in groups)
            if pairs:
                self.add_error("groups", role_conflict_message(pairs))
        return cleaned


class AuditedUserAdmin(UserAdmin):
    form = StaffUserChangeForm

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


# ── personal limits ─────────────────────────────────────────────────────────


class PlayerLimitForm(forms.ModelForm):
    # Typed as plain digits only (``5e8`` or ``1,000`` is refused with a message, never read as a number).
    max_stake = AmountField(
        label="Personal maximum stake",
        required=False,
        help_text=PlayerLimit._meta.get_field("max_stake").help_text,
    )
    reason = forms.CharField(
        min_length=REASON_MIN,
        max_length=REASON_MAX,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text=f"Why, in {REASON_MIN} to {REASON_MAX} characters: kept with the change in the audit trail.",
    )

    class Meta:
        model = PlayerLimit
        fields = ("user", "max_stake", "reason")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each change states its own reason; the last one is shown beside the form, not offered again.
        self.initial["reason"] = ""

    def clean_max_stake(self) -> Any:
        amount = self.cleaned_data["max_stake"]
        if amount is not None and not money.CENT <= amount <= MAX_PERSONAL_STAKE:
            raise ValidationError(f"Between 0.01 and {money.display(MAX_PERSONAL_STAKE)}, or empty for no limit.")
        return amount

    def clean_user(self) -> Any:
        user = self.cleaned_data["user"]
        if user is not None and user.is_staff:
            raise ValidationError("Staff accounts do not bet: a personal limit is for players.")
        return user


@admin.register(PlayerLimit)
class PlayerLimitAdmin(admin.ModelAdmin):
    form = PlayerLimitForm
    list_display = ("user", "personal_maximum", "reason", "updated_by", "updated_at")
    list_select_related = ("user", "updated_by")
    search_fields = ("user__username",)
    autocomplete_fields = ("user",)
    readonly_fields = ("last_reason", "updated_by", "updated_at")

    def get_fields(self, request: HttpRequest, obj: PlayerLimit | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("user", "max_stake", "reason")
        return ("user", "max_stake", "last_reason", "updated_by", "updated_at", "reason")

    def get_readonly_fields(self, request: HttpRequest, obj: PlayerLimit | None = None) -> tuple[str, ...]:
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields if obj is None else ("user", *fields)

    @admin.display(description="Personal maximum stake", ordering="max_stake")
    def personal_maximum(self, obj: PlayerLimit) -> str:
        return "—" if obj.max_stake is None else money.display(obj.max_stake)

    @admin.display(description="Reason of the last change")
    def last_reason(self, obj: PlayerLimit) -> str:
        return obj.reason

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # cleared by a change with a reason, never deleted (the audit trail keeps its history)

    def save_model(self, request: HttpRequest, obj: PlayerLimit, form: Any, change: bool) -> None:
        """Through the service (which audits it), never ``obj.save()``; its refusals were checked by the form."""
        data = form.cleaned_data
        user = obj.user
        try:
            saved = player_limit_set(
                user=user, max_stake=data["max_stake"], reason=data["reason"], actor=cast("AuthUser", request.user)
            )
        except DomainError as error:  # pragma: no cover - the form refuses the same input first
            raise ValidationError(error.detail) from error
        obj.pk, obj.updated_at, obj.updated_by = saved.pk, saved.updated_at, saved.updated_by

    def get_form(
        self, request: HttpRequest, obj: PlayerLimit | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        actor = request.user

        class WithActor(form):  # type: ignore[misc, valid-type]
            def clean(self) -> dict[str, Any]:
                cleaned: dict[str, Any] = super().clean()
                user = cleaned.get("user") if obj is None else obj.user
                if user is not None and user.pk == actor.pk:
                    raise ValidationError("No one sets their own personal limit.")
                return cleaned

        return WithActor
