"""The account forms: Django's auth forms with every label, help text and error in the casino's catalogues."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, password_validation
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from baccarat_site.accounts.limits import AMOUNT_KINDS, limit_label
from baccarat_site.accounts.lockout import password_lockout_detail
from baccarat_site.accounts.models import Profile
from baccarat_site.accounts.selectors import active_restriction
from baccarat_site.accounts.services import person_stop_check, restriction_refusal
from baccarat_site.errors import DomainError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

REQUIRED = {"required": _("This field is required.")}
MISMATCH = _("The two password fields didn’t match.")


def _password(label: Any, *, autocomplete: str = "new-password", help_text: Any = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
        help_text=help_text,
        error_messages=REQUIRED,
    )


class SignupForm(auth_forms.UserCreationForm):
    """Django's UserCreationForm (its checks, AUTH_PASSWORD_VALIDATORS, case-insensitive unique names)."""

    error_messages = {**auth_forms.UserCreationForm.error_messages, "password_mismatch": MISMATCH}

    username = auth_forms.UsernameField(
        label=_("Username"),
        max_length=150,
        help_text=_("Up to 150 characters: letters, digits and @/./+/-/_ only."),
        validators=[
            UnicodeUsernameValidator(
                message=_("Enter a valid username: letters, digits and @/./+/-/_ only, no spaces.")
            )
        ],
        error_messages={**REQUIRED, "max_length": _("A username has at most 150 characters.")},
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}),
    )
    password1 = _password(_("Password"), help_text=password_validation.password_validators_help_text_html())
    password2 = _password(_("Password confirmation"), help_text=_("Enter the same password again."))

    class Meta(auth_forms.UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]  # clean_<field> runs only once the field put its value there
        if username and self._meta.model.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("That username is taken: please choose another."), code="unique")
        return username

    def validate_unique(self) -> None:
        """The name's uniqueness is checked (case-insensitively, in the player's language) by clean_username;
        a race with another sign-up is caught by the database and reported the same way by the view."""


class LoginForm(auth_forms.AuthenticationForm):
    error_messages = {
        **auth_forms.AuthenticationForm.error_messages,
        "invalid_login": _("That username and password do not match. Both are case-sensitive."),
        "inactive": _("This account is inactive."),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("Username")
        self.fields["username"].error_messages.update(REQUIRED)
        self.fields["username"].widget.attrs.update({"autocapitalize": "none"})
        self.fields["password"].label = _("Password")
        self.fields["password"].error_messages.update(REQUIRED)

    def confirm_login_allowed(self, user: User) -> None:
        """Refuse a player whose play is stopped (suspended, closed, on a time-out or self-excluded), or who looks
        like the person of another account that is (``accounts.services.person_stop_check``), saying why and until
        when."""
        super().confirm_login_allowed(user)

        stop = active_restriction(user_id=user.pk)
        if stop is not None:
            raise forms.ValidationError(restriction_refusal(stop).detail, code="restricted")
        if not user.is_staff:  # another account of the same person that a restriction stops (the device, …)
            try:
                person_stop_check(request=self.request, username=user.get_username(), email=user.email, user_id=user.pk)
            except DomainError as error:
                raise forms.ValidationError(error.detail, code="restricted") from error


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Django's form, with the current password checked through ``authenticate`` so that django-axes counts a
    wrong one like a wrong sign-in (``AXES_FAILURE_LIMIT`` per username and address, then ``AXES_COOLOFF_TIME``
    refused, and the lockout page: ``baccarat_site.accounts.lockout``): a stolen session cannot guess the
    password here without the limit that guards the sign-in."""

    error_messages = {
        **auth_forms.PasswordChangeForm.error_messages,
        "password_mismatch": MISMATCH,
        "password_incorrect": _("Your old password was entered incorrectly. Please enter it again."),
    }
    old_password = _password(_("Current password"), autocomplete="current-password")
    new_password1 = _password(_("New password"), help_text=password_validation.password_validators_help_text_html())
    new_password2 = _password(_("New password confirmation"), help_text=_("Enter the same password again."))

    field_order = ["old_password", "new_password1", "new_password2"]

    def __init__(self, user: User, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data["old_password"]
        if self.request is None:  # outside a request (no address to count by): Django's own check
            return str(super().clean_old_password())
        checked = authenticate(self.request, username=self.user.get_username(), password=old_password)
        if getattr(self.request, "axes_locked_out", False):
            raise forms.ValidationError(password_lockout_detail(self.request), code="too_many_attempts")
        if checked is None or checked.pk != self.user.pk:
            raise forms.ValidationError(self.error_messages["password_incorrect"], code="password_incorrect")
        return str(old_password)


class ProfileForm(forms.ModelForm):
    language = forms.ChoiceField(
        label=_("Language"),
        choices=[("", _("The browser’s language")), *settings.LANGUAGES],
        required=False,
        error_messages={"invalid_choice": _("Choose one of the languages in the list.")},
    )
    sound = forms.BooleanField(label=_("Sound at the tables"), required=False)

    class Meta:
        model = Profile
        fields = ("language", "sound")


class PreferencesForm(forms.Form):
    """One preference at a time, from the header's language switcher or a table's sound button."""

    language = forms.ChoiceField(choices=settings.LANGUAGES, required=False)
    sound = forms.ChoiceField(choices=[("on", "on"), ("off", "off")], required=False)


class LimitsForm(forms.Form):
    """The account page's responsible-gaming form (``accounts.limits``): every limit, empty for none. Its values
    go to ``play_limits_set``, which judges them as the API's are judged; a field starts at the limit the player
    asked for last (a pending change, or the limit in force)."""

    def __init__(self, *args: Any, initial_limits: dict[str, str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("initial", initial_limits or {})
        super().__init__(*args, **kwargs)
        for kind in AMOUNT_KINDS:
            self.fields[kind] = forms.CharField(
                label=limit_label(kind),
                required=False,
                max_length=20,
                widget=forms.TextInput(attrs={"inputmode": "decimal", "placeholder": _("No limit"), "dir": "ltr"}),
            )
        self.fields["session_minutes"] = forms.CharField(
            label=limit_label("session_minutes"),
            required=False,
            max_length=5,
            help_text=_("10 to 1440 minutes; empty for none."),
            widget=forms.TextInput(attrs={"inputmode": "numeric", "placeholder": _("No limit"), "dir": "ltr"}),
        )
        self.fields["reality_check_minutes"] = forms.ChoiceField(
            label=limit_label("reality_check_minutes"),
            required=False,
            choices=[("", _("Off")), ("15", "15"), ("30", "30"), ("60", "60")],
        )

    def changes(self) -> dict[str, str | None]:
        """The values as ``play_limits_set`` reads them: amounts without thousands separators, None for empty."""
        out: dict[str, str | None] = {}
        for name, value in self.cleaned_data.items():
            text = str(value or "").replace(",", "").replace(" ", "").strip()
            out[name] = text or None
        return out
