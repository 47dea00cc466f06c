"""The device cookie: a long-lived random id a browser is given when it first signs in (``sign_in_record``),
so the risk alerts can tell that two accounts were used from one device."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class DeviceCookieMiddleware:
    """Sets ``DEVICE_COOKIE_NAME`` on the response of a sign-in that made a new device id; nothing otherwise."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        device = getattr(request, "new_device_id", None)
        if device:
            response.set_cookie(
                settings.DEVICE_COOKIE_NAME,
                device,
                max_age=settings.DEVICE_COOKIE_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
