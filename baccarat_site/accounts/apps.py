from typing import Any

from django.apps import AppConfig


def _record_sign_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """``user_logged_in``: every sign-in (login page, admin, sign-up) is recorded with its address and device."""
    from baccarat_site.accounts.services import sign_in_record

    sign_in_record(user=user, request=request)


class AccountsConfig(AppConfig):
    name = "baccarat_site.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from baccarat_site.roles import sync_roles_after_migrate

        # The last app in INSTALLED_APPS: by its post_migrate every app's permissions exist.
        post_migrate.connect(sync_roles_after_migrate, sender=self, dispatch_uid="baccarat-sync-roles")

        from django.contrib.auth.signals import user_logged_in

        user_logged_in.connect(_record_sign_in, dispatch_uid="baccarat-record-sign-in")
