"""Receivers that tie Django's auth events to the account services: every way a password changes, every
sign-out, every change of a user's groups or staff flags (conflicting roles refused, a player made staff has
their wallet frozen). Connected in ``AccountsConfig.ready``."""

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


# ── staff: conflicting roles refused, a player made staff has their wallet frozen ──────────────────────────


def _group_names(user_ids: Any) -> dict[int, set[str]]:
    from django.contrib.auth.models import Group

    held: dict[int, set[str]] = {user_id: set() for user_id in user_ids}
    for user_id, name in Group.objects.filter(user__in=list(held)).values_list("user", "name"):
        held[user_id].add(name)
    return held


def groups_changing(
    sender: Any, instance: Any, action: str, reverse: bool, model: Any, pk_set: Any = None, **kwargs: Any
) -> None:
    """``m2m_changed`` of ``User.groups``, both ways (``user.groups.add(group)``, ``group.user_set.add(user)``, the
    admin's user form, ``set``, ``clear``): an add that would give someone conflicting roles
    (``baccarat_site.roles.CONFLICTS``) is refused with :class:`~baccarat_site.roles.RoleConflict`, naming the
    conflict, before anything is written; and a change that makes a player staff, or stops them being staff, is
    recorded on their wallet (``wallets.services.wallet_staff_changed``)."""
    from django.contrib.auth.models import Group

    from baccarat_site.roles import is_staff_member, role_conflicts_check
    from wallets.services import wallet_staff_changed

    if action in ("pre_add", "pre_remove", "pre_clear"):
        if not reverse:
            user_ids = [instance.pk]
        elif action == "pre_clear":
            user_ids = list(instance.user_set.values_list("pk", flat=True))
        else:
            user_ids = list(pk_set or ())
        if action == "pre_add" and pk_set:
            if reverse:
                held = _group_names(user_ids)
                names = dict(model._default_manager.filter(pk__in=user_ids).values_list("pk", "username"))
                for user_id, groups in held.items():
                    role_conflicts_check(groups | {instance.name}, who=names.get(user_id, f"user #{user_id}"))
            else:
                adding = set(Group.objects.filter(pk__in=pk_set).values_list("name", flat=True))
                held = _group_names([instance.pk])
                role_conflicts_check(held[instance.pk] | adding, who=instance.get_username())
        instance._staff_before = {user_id: is_staff_member(user_id) for user_id in user_ids}
        return
    before = getattr(instance, "_staff_before", None)
    if action in ("post_add", "post_remove", "post_clear") and before:
        instance._staff_before = None
        for user_id, was_staff in before.items():
            wallet_staff_changed(user_id=user_id, was_staff=was_staff)


def staff_saving(sender: Any, instance: Any, update_fields: Any = None, raw: bool = False, **kwargs: Any) -> None:
    """``pre_save`` of the user model: whether the account was staff before a save that may change ``is_staff`` or
    ``is_superuser``, for :func:`staff_saved`."""
    from baccarat_site.roles import is_staff_member

    instance._staff_before_save = None
    if raw or instance.pk is None:
        return
    if update_fields is not None and not {"is_staff", "is_superuser"} & set(update_fields):
        return
    instance._staff_before_save = is_staff_member(instance.pk)


def staff_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """``post_save`` of the user model: a player made staff (``is_staff`` or ``is_superuser`` set, in the admin or in
    code) has their wallet frozen, recorded in the audit trail (``wallets.services.wallet_staff_changed``)."""
    from wallets.services import wallet_staff_changed

    was_staff = getattr(instance, "_staff_before_save", None)
    instance._staff_before_save = None
    if created or was_staff is None:
        return
    wallet_staff_changed(user_id=instance.pk, was_staff=was_staff)
