"""What a locked-out sign-in gets (django-axes calls :func:`lockout_response`): a page in the player's
language, or under ``/api/`` the API's ``{"code", "detail"}`` body; both 429 with ``Retry-After``."""

from __future__ import annotations

from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

CODE = "too_many_attempts"


def lockout_detail(minutes: int) -> str:
    return ngettext(
        "Too many failed sign-ins. Try again in %(minutes)d minute.",
        "Too many failed sign-ins. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 900
    minutes = max(1, (seconds + 59) // 60)
    detail = lockout_detail(minutes)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"code": CODE, "detail": detail, "retry_after": seconds}, status=429)
    else:
        response = render(
            request,
            "accounts/locked_out.html",
            {"detail": detail, "title": _("Signing in is paused")},
            status=429,
        )
    response["Retry-After"] = str(seconds)
    return response
