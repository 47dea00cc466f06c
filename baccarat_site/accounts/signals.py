"""Receivers that tie Django's auth events to the account services: every way a password changes, every
sign-out. Connected in ``AccountsConfig.ready``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpRequest

from baccarat_site.accounts import services

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def password_saving(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """``pre_save`` of the user model: note whether a saved user's password hash is being replaced by an unusable
    one (the admin's "password-based authentication: disabled", ``set_unusable_password``), which leaves no
    raw password behind for :func:`password_saved` to see."""
    instance._password_disabled = False
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    if instance.has_usable_password():
        return
    stored = type(instance)._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._password_disabled = stored is not None and stored != instance.password


def activity_saving(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """``pre_save`` of the user model: note whether a saved user is being deactivated (``is_active`` from on to
    off), for :func:`activity_saved`. Read only when the user being saved is inactive."""
    instance._deactivating = False
    if instance.pk is None or instance.is_active or (update_fields is not None and "is_active" not in update_fields):
        return
    was_active = type(instance)._default_manager.filter(pk=instance.pk).values_list("is_active", flat=True).first()
    instance._deactivating = bool(was_active)


def activity_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of the user model: a deactivated account's open sockets close (4401) and its token goes."""
    if created or not getattr(instance, "_deactivating", False):
        return
    instance._deactivating = False
    services.account_deactivated(user=instance)


def password_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of the user model. ``set_password`` leaves the new raw password on ``_password`` until the
    save after it has run (Django's own hook for the validators' ``password_changed``), so this sees every
    change, from any form or command, and not the silent re-hash to Argon2 at sign-in (which clears it); a
    password turned off is seen by :func:`password_saving`."""
    if created:
        return
    if getattr(instance, "_password", None) is None and not getattr(instance, "_password_disabled", False):
        return
    instance._password_disabled = False
    services.account_password_changed(user=instance)


def signed_out(sender: Any, request: HttpRequest | None = None, user: User | None = None, **kwargs: Any) -> None:
    """``user_logged_out``: sent by ``django.contrib.auth.logout`` before it flushes the session. The service
    deletes the session before it closes the session's sockets; the flush that follows finds nothing left to
    delete and gives the browser a new, empty session."""
    if user is None:
        return
    services.account_signed_out(user=user, session=getattr(request, "session", None))
