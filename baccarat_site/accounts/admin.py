"""Players' personal limits in the admin: Supervisors set them (``accounts.add_playerlimit`` /
``change_playerlimit``, baccarat_site/roles.py), Auditors read them, nobody else sees them.

Every save asks for a reason and goes through ``accounts.services.player_limit_set``, which writes the audit
entry (who, the limit before and after, why). A limit is never deleted: it is cleared by emptying it, with a
reason, like any other change.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from baccarat_site import money
from baccarat_site.accounts.models import PlayerLimit
from baccarat_site.accounts.services import MAX_PERSONAL_STAKE, REASON_MAX, REASON_MIN, player_limit_set
from baccarat_site.errors import DomainError


class PlayerLimitForm(forms.ModelForm):
    max_stake = forms.DecimalField(
        label="Personal maximum stake",
        required=False,
        max_digits=12,
        decimal_places=2,
        min_value=money.CENT,
        max_value=MAX_PERSONAL_STAKE,
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
            saved = player_limit_set(user=user, max_stake=data["max_stake"], reason=data["reason"], actor=request.user)
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
