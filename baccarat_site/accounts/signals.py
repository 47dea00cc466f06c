"""Receivers that tie Django's auth events to the account services: every way a password changes, every
sign-out. Connected in ``AccountsConfig.ready``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from baccarat_site.accounts import services


def password_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of the user model. ``set_password`` leaves the new raw password on ``_password`` until the
    save after it has run (Django's own hook for the validators' ``password_changed``), so this sees every
    change, from any form or command, and not the silent re-hash to Argon2 at sign-in (which clears it)."""
    if created or getattr(instance, "_password", None) is None:
        return
    services.account_password_changed(user=instance)


def signed_out(sender: Any, request: HttpRequest | None = None, user: Any = None, **kwargs: Any) -> None:
    """``user_logged_out``: sent by ``django.contrib.auth.logout`` before it flushes the session."""
    if user is None:
        return
    session = getattr(request, "session", None)
    services.account_signed_out(user=user, session_key=getattr(session, "session_key", None))
