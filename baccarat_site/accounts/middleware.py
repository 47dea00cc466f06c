"""The device cookie: a long-lived random id, signed, every browser is given on its first page, so the risk alerts
can tell that two accounts were used from one device and a sign-up from a stopped player's browser is refused
(``accounts.services.person_stop_check``)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from baccarat_site.accounts.services import (
    DEVICE_COOKIE_SALT,
    device_id_from_cookie,
    device_id_new,
    restriction_ends_session,
    restriction_refusal,
)


class DeviceCookieMiddleware:
    """Reads the browser's signed ``DEVICE_COOKIE_NAME`` into ``request.device_id``; a browser without a valid
    one (never seen, or a cookie we did not sign) gets a new id, set on the response, signed
    (``set_signed_cookie``), for ``DEVICE_COOKIE_AGE``. API requests (``/api/``: token clients keep no cookies)
    get none, but a sign-in recorded on one still makes one (``sign_in_record``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        device = device_id_from_cookie(request)
        if not device and not request.path.startswith("/api/"):
            device = device_id_new()
            request.new_device_id = device  # type: ignore[attr-defined]
        request.device_id = device  # type: ignore[attr-defined]
        response = self.get_response(request)
        new = getattr(request, "new_device_id", None)
        if new:
            response.set_signed_cookie(
                settings.DEVICE_COOKIE_NAME,
                new,
                salt=DEVICE_COOKIE_SALT,
                max_age=settings.DEVICE_COOKIE_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


class RestrictedSessionMiddleware:
    """Ends the signed-in session of a player a restriction has just stopped (a suspension, a closure, a time-out
    or a self-exclusion): ``accounts.services`` marks the player in the cache when it starts one, and this reads
    the mark (one cache look-up per signed-in request) and signs the player out, to the sign-in page, which says
    why and until when. Bets never depend on the mark: placement reads the restriction from the database."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        stop = None
        if user is not None and user.is_authenticated and not user.is_staff:
            stop = restriction_ends_session(user_id=user.pk)
        if stop is not None:
            logout(request)
            if request.path.startswith("/api/"):
                return JsonResponse(
                    {"code": "signed_out", "detail": "This session has ended: sign in again."}, status=401
                )
            # The sign-in page says why (a page of another tab may get here first, after a time-out taken there).
            messages.info(request, _("You have been signed out.") + " " + str(restriction_refusal(stop).detail))
            return redirect(settings.LOGIN_URL)
        return self.get_response(request)
