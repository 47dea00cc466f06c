"""What a locked-out sign-in gets (django-axes calls :func:`lockout_response`): a page in the player's
language, or under ``/api/`` the API's ``{"code", "detail"}`` body; both 429 with ``Retry-After``."""

from __future__ import annotations

from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

CODE = "too_many_attempts"


def lockout_detail(minutes: int) -> str:
    return ngettext(
        "Too many failed sign-ins. Try again in %(minutes)d minute.",
        "Too many failed sign-ins. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def _cool_off_seconds(request: HttpRequest | None) -> int:
    cool_off = get_cool_off(request)
    return int(cool_off.total_seconds()) if cool_off else 900


def password_lockout_detail(request: HttpRequest | None = None) -> str:
    """The password page's refusal once too many current passwords were wrong."""
    minutes = max(1, (_cool_off_seconds(request) + 59) // 60)
    return ngettext(
        "Too many wrong current passwords. Try again in %(minutes)d minute.",
        "Too many wrong current passwords. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    seconds = _cool_off_seconds(request)
    minutes = max(1, (seconds + 59) // 60)
    detail = lockout_detail(minutes)
    response: HttpResponse
    if request.path == reverse("password_change"):
        # The current password was guessed too often on the password page (forms.PasswordChangeForm).
        response = render(
            request,
            "accounts/locked_out.html",
            {"detail": password_lockout_detail(request), "title": _("Changing the password is paused")},
            status=429,
        )
    elif request.path.startswith("/api/"):
        response = JsonResponse({"code": CODE, "detail": detail, "retry_after": seconds}, status=429)
    else:
        response = render(
            request,
            "accounts/locked_out.html",
            {"detail": detail, "title": _("Signing in is paused")},
            status=429,
        )
    response["Retry-After"] = str(seconds)
    return response
