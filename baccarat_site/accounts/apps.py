from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.apps import AppConfig

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest


def _record_sign_in(sender: Any, request: HttpRequest, user: User, **kwargs: Any) -> None:
    """``user_logged_in``: every sign-in (login page, admin, sign-up) is recorded with its address and device."""
    # Imported on use: apps.py is loaded before the models, which the services import.
    from baccarat_site.accounts.services import sign_in_record

    sign_in_record(user=user, request=request)


class AccountsConfig(AppConfig):
    name = "baccarat_site.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: apps.py is loaded before the app registry is ready.
        from auditlog.models import LogEntry
        from auditlog.registry import auditlog
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import m2m_changed, post_migrate, post_save, pre_delete, pre_save

        from baccarat_site import audit
        from baccarat_site.accounts import signals
        from baccarat_site.roles import sync_roles_after_migrate

        # The last app in INSTALLED_APPS: by its post_migrate every app's permissions exist.
        post_migrate.connect(sync_roles_after_migrate, sender=self, dispatch_uid="baccarat-sync-roles")

        from django.contrib.auth.signals import user_logged_in

        user_logged_in.connect(_record_sign_in, dispatch_uid="baccarat-record-sign-in")

        # Staff accounts and their rights are audited (baccarat_site/audit.py): a user's every field but
        # last_login (a sign-in is not a change), the password only as "(hidden)"; groups; and the grants.
        user_model = get_user_model()
        auditlog.register(
            user_model,
            # Its own columns only (not every reverse relation a new user would list as "None"), less last_login.
            include_fields=[f.name for f in user_model._meta.concrete_fields if f.name != "last_login"],
            exclude_fields=["last_login"],
            mask_fields=["password"],
            mask_callable="baccarat_site.audit.hide_password",
            m2m_fields={"groups", "user_permissions"},
        )
        auditlog.register(Group, include_fields=["id", "name"], m2m_fields={"permissions"})
        # Every entry stores who by name (and a command's OS user); nobody who acted can be deleted.
        pre_save.connect(audit.stamp_entry, sender=LogEntry, dispatch_uid="baccarat-audit-stamp")
        pre_delete.connect(audit.refuse_deleting_an_actor, sender=user_model, dispatch_uid="baccarat-audit-actor")
        # A password change or a sign-out revokes the API token and closes the sockets it concerns.
        pre_save.connect(signals.password_saving, sender=get_user_model(), dispatch_uid="baccarat-password-saving")
        post_save.connect(signals.password_saved, sender=get_user_model(), dispatch_uid="baccarat-password-saved")
        user_logged_out.connect(signals.signed_out, dispatch_uid="baccarat-signed-out")
        # Separation of duties and staff who do not play (baccarat_site/roles.py): a group add that would combine
        # conflicting roles is refused, both ways; a player made staff has their wallet frozen (audited).
        m2m_changed.connect(
            signals.groups_changing, sender=user_model.groups.through, dispatch_uid="baccarat-groups-changing"
        )
        pre_save.connect(signals.staff_saving, sender=user_model, dispatch_uid="baccarat-staff-saving")
        post_save.connect(signals.staff_saved, sender=user_model, dispatch_uid="baccarat-staff-saved")
        # So does a deactivation (is_active turned off), by the admin or any code.
        pre_save.connect(signals.activity_saving, sender=get_user_model(), dispatch_uid="baccarat-activity-saving")
        post_save.connect(signals.activity_saved, sender=get_user_model(), dispatch_uid="baccarat-activity-saved")
