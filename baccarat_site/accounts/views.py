"""The account pages: sign up, sign in (Django's LoginView), profile with preferences and the refill button,
and the two small endpoints the header's language switcher and a table's sound button save through."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from baccarat_site.accounts import selectors, services
from baccarat_site.accounts.forms import (
    LimitsForm,
    LoginForm,
    PasswordChangeForm,
    PreferencesForm,
    ProfileForm,
    SignupForm,
)
from baccarat_site.accounts.limits import AMOUNT_KINDS, LimitsState, limit_label, play_limits_set
from baccarat_site.accounts.models import PLAY_LIMIT_KINDS, Restriction
from baccarat_site.client_address import client_address
from baccarat_site.errors import DomainError
from baccarat_site.money import display
from tables.selectors.spending import limits_state
from tables.selectors.spending import session_totals as bets_session_totals
from tables.selectors.tables import table_minimum_stake
from wallets import selectors as wallet_selectors

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_Response = TypeVar("_Response", bound=HttpResponseBase)


def remember_language(response: _Response, language: str) -> _Response:
    """Make ``language`` the one the casino speaks from the next request on (the cookie LocaleMiddleware reads,
    set as Django's set_language sets it); ``""`` (the browser's language) forgets the choice."""
    if not language:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, path=settings.LANGUAGE_COOKIE_PATH)
        return response
    translation.activate(language)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response


class LoginView(auth_views.LoginView):
    """Django's LoginView; a player who chose a language on their profile gets it as they sign in."""

    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        language = selectors.profile_of(user=form.get_user()).language
        return remember_language(response, language) if language else response


class PasswordChangeView(auth_views.PasswordChangeView):
    form_class = PasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}  # the sign-in throttle counts by address


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lobby")
    form = SignupForm(request.POST or None)
    status, retry_after = 200, 0
    if request.method == "POST" and form.is_valid():
        try:
            user, credited = services.player_sign_up(
                form=form,
                language=translation.get_language() or "",
                address=client_address(request),
                request=request,
            )
        except services.UsernameTaken:
            form.add_error("username", _("That username is taken: please choose another."))
        except services.TooManySignUps as error:
            status, retry_after = 429, error.retry_after
            minutes = max(1, math.ceil(retry_after / 60))
            form.add_error(
                None,
                ngettext(
                    "Too many new accounts from your address. Try again in %(minutes)d minute.",
                    "Too many new accounts from your address. Try again in %(minutes)d minutes.",
                    minutes,
                )
                % {"minutes": minutes},
            )
        except DomainError as error:  # the person's own stop, or a staff stop on an account of theirs
            status = error.status
            form.add_error(None, error.detail)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            if not credited:
                messages.info(
                    request,
                    _(
                        "Welcome! The starting play money for new accounts from your address is used up for "
                        "today, so this account starts at 0.00. You can refill it here in an hour."
                    ),
                )
                return redirect("profile")  # where the message and the refill's countdown show
            return redirect("lobby")
    starting = display(wallet_selectors.starting_balance())
    response = render(request, "accounts/signup.html", {"form": form, "starting_balance": starting}, status=status)
    if status == 429:
        response["Retry-After"] = str(retry_after)
    return response


@login_required
def profile(request: HttpRequest, limits_form: LimitsForm | None = None) -> HttpResponse:
    user = cast("User", request.user)
    saved = selectors.profile_of(user=user)
    form = ProfileForm(request.POST if limits_form is None and request.method == "POST" else None, instance=saved)
    if limits_form is None and request.method == "POST" and form.is_valid():
        language = form.cleaned_data["language"]
        services.profile_update(user=user, language=language, sound=form.cleaned_data["sound"])
        response = remember_language(redirect("profile"), language)
        messages.success(request, _("Your preferences are saved."))
        return response
    refill = selectors.refill_status(user=user, minimum_stake=table_minimum_stake())
    personal = selectors.personal_limits_of(user=user)
    state = limits_state(user_id=user.pk)
    return render(
        request,
        "accounts/profile.html",
        {
            "form": form,
            "refill": refill,
            "refill_amount": display(refill.starting),
            "refill_refusal": _refusal_text(refill.refusal, refill),
            "personal_max": display(personal["max_stake"]) if personal else "",
            "limits_form": limits_form or LimitsForm(initial_limits=_asked_limits(state)),
            "limit_rows": _limit_rows(state),
            "api_token": selectors.api_token_of(user=user),
            "break_choices": _break_choices(),
        },
    )


def _period_labels() -> dict[str, str]:
    """The periods of a player's own stop (``accounts.services``), as the pages name them."""
    return {
        "24h": _("24 hours"),
        "7d": _("7 days"),
        "30d": _("30 days"),
        "6w": _("6 weeks"),
        "6m": _("6 months"),
        "1y": _("1 year"),
        "5y": _("5 years"),
    }


def _break_choices() -> list[dict[str, Any]]:
    """The profile's "Take a break" forms: a time-out and a self-exclusion, each with its periods."""
    labels = _period_labels()
    return [
        {
            "kind": Restriction.Kind.TIME_OUT.value,
            "title": _("Time-out"),
            "note": _("A short break from play: you cannot sign in or bet until it ends."),
            "button": _("Take a time-out"),
            "periods": [(period, labels[period]) for period in services.TIME_OUT_PERIODS],
        },
        {
            "kind": Restriction.Kind.SELF_EXCLUSION.value,
            "title": _("Self-exclusion"),
            "note": _("A long stop for when gambling is becoming a problem. Nobody can end it early."),
            "button": _("Exclude myself"),
            "periods": [(period, labels[period]) for period in services.SELF_EXCLUSION_PERIODS],
        },
    ]


@login_required
@require_http_methods(["GET", "POST"])
def take_break(request: HttpRequest) -> HttpResponse:
    """The second step of the profile's "Take a break": ``GET ?kind=&period=`` shows when the stop would end
    (computed here) and changes nothing; ``POST`` with ``confirm`` takes it (``services.player_self_restrict``),
    signs the player out and sends them to the sign-in page, which says until when. A bad kind or period
    shows why (400), and nothing changes."""
    data = request.POST if request.method == "POST" else request.GET
    kind, period = str(data.get("kind", "")), str(data.get("period", ""))
    context: dict[str, Any] = {"kind": kind, "period": period}
    try:
        if request.method == "POST" and data.get("confirm"):
            stop = services.player_self_restrict(user=cast("User", request.user), kind=kind, period=period)
            logout(request)
            messages.info(
                request, _("You have been signed out.") + " " + str(services.restriction_refusal(stop).detail)
            )
            return redirect("login")
        ends_at = services.self_restriction_end(kind=kind, period=period, now=timezone.now())
    except DomainError as error:
        context["error"] = error.detail
        return render(request, "accounts/take_break.html", context, status=400)
    context.update(
        title=_("Take a time-out") if kind == Restriction.Kind.TIME_OUT else _("Exclude myself"),
        period_label=_period_labels()[period],
        until=formats.date_format(ends_at, "Y-m-d H:i") + " UTC",
    )
    return render(request, "accounts/take_break.html", context)


@login_required
@require_GET
def session_totals(request: HttpRequest) -> JsonResponse:
    """The reality check's figures: what the player staked since signing in, the net result of the settled bets
    and what is still in play, as the pages write amounts (``1,234.00``; the net signed)."""
    totals = bets_session_totals(user=cast("User", request.user))
    net = display(totals.net)
    return JsonResponse(
        {
            "staked": display(totals.staked),
            "net": net if totals.net <= 0 else "+" + net,
            "pending": display(totals.pending),
            "open": totals.pending > 0,
        }
    )


def _limit_text(kind: str, value: Decimal | None) -> str:
    if value is None:
        return ""
    return display(value) if kind in AMOUNT_KINDS else str(int(value))


def _asked_limits(state: LimitsState) -> dict[str, str]:
    """What the form starts with: per limit, the pending value if a change is waiting, else the one in force."""
    return {
        kind: _limit_text(kind, state.pending[kind].value if kind in state.pending else state.in_force[kind])
        for kind in PLAY_LIMIT_KINDS
    }


def _limit_rows(state: LimitsState) -> list[dict[str, str]]:
    """One row per limit for the page's table: in force, pending (and when it applies), used and left."""
    rows = []
    for kind in PLAY_LIMIT_KINDS:
        pending = state.pending.get(kind)
        usage = state.usage.get(kind)
        rows.append(
            {
                "kind": kind,
                "label": limit_label(kind),
                "in_force": _limit_text(kind, state.in_force[kind]) or _("None"),
                "pending": "" if pending is None else (_limit_text(kind, pending.value) or _("None")),
                "applies_at": "" if pending is None else formats.date_format(pending.applies_at, "Y-m-d H:i") + " UTC",
                "used": "" if usage is None else display(usage.used),
                "left": "" if usage is None else display(usage.left),
            }
        )
    return rows


@login_required
@require_POST
def limits(request: HttpRequest) -> HttpResponse:
    """Save the responsible-gaming form (``accounts.limits.play_limits_set``, as ``PUT /api/account/limits/``):
    a refused value shows the profile again with the error, and nothing changes."""
    form = LimitsForm(request.POST)
    if form.is_valid():
        try:
            play_limits_set(user=cast("User", request.user), changes=dict(form.changes()))
        except DomainError as error:
            form.add_error(None, error.detail)
        else:
            messages.success(
                request,
                _("Your limits are saved. Stricter limits apply now; looser ones apply after 24 hours."),
            )
            return redirect(reverse("profile") + "#limits-title")
    return profile(request, limits_form=form)


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    """The profile's Revoke button: the player's API token stops working now."""
    if services.api_token_revoke(user=cast("User", request.user)):
        messages.success(request, _("Your API token is revoked: programs that used it are signed out."))
    else:
        messages.info(request, _("You have no API token."))
    return redirect("profile")


@login_required
@require_POST
def refill(request: HttpRequest) -> HttpResponse:
    user = cast("User", request.user)
    try:
        services.player_refill(user=user, minimum_stake=table_minimum_stake())
    except DomainError as error:
        status = selectors.refill_status(user=user, minimum_stake=table_minimum_stake())
        messages.error(request, _refusal_text(error.code, status) or error.detail or _("The refill was refused."))
    else:
        balance = display(wallet_selectors.wallet_balance(user=user)["balance"])
        messages.success(request, _("Your play money is back to %(amount)s.") % {"amount": balance})
    return redirect("profile")


def _refusal_text(code: str | None, status: wallet_selectors.RefillStatus) -> str:
    if code == "refill_not_needed":
        return _("A refill is for a balance below the smallest table minimum (%(minimum)s).") % {
            "minimum": display(status.minimum)
        }
    if code == "refill_too_soon":
        minutes = math.ceil((status.retry_after or 60) / 60)
        return ngettext(
            "One refill an hour: you can refill again in %(minutes)s minute.",
            "One refill an hour: you can refill again in %(minutes)s minutes.",
            minutes,
        ) % {"minutes": minutes}
    return ""


@require_POST
def set_language(request: HttpRequest) -> HttpResponseBase:
    """The header's language switcher: Django's set_language, and for a signed-in player also their profile."""
    if request.user.is_authenticated:
        form = PreferencesForm(request.POST)
        if form.is_valid() and form.cleaned_data["language"]:
            services.profile_update(user=request.user, language=form.cleaned_data["language"])
    return django_set_language(request)


@login_required
@require_POST
def sound(request: HttpRequest) -> JsonResponse:
    """Save the sound preference (``sound=on|off``, form-encoded) from a table's sound button."""
    form = PreferencesForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["sound"]:
        return JsonResponse({"code": "invalid_request", "detail": "sound must be on or off."}, status=400)
    services.profile_update(user=cast("User", request.user), sound=form.cleaned_data["sound"] == "on")
    return JsonResponse({"sound": form.cleaned_data["sound"]})


password_change = login_required(PasswordChangeView.as_view(success_url=reverse_lazy("password_change_done")))
password_change_done = login_required(auth_views.PasswordChangeDoneView.as_view())
login_view = LoginView.as_view()
