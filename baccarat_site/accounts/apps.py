from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "baccarat_site.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_migrate, post_save, pre_save

        from baccarat_site.accounts import signals
        from baccarat_site.roles import sync_roles_after_migrate

        # The last app in INSTALLED_APPS: by its post_migrate every app's permissions exist.
        post_migrate.connect(sync_roles_after_migrate, sender=self, dispatch_uid="baccarat-sync-roles")
        # A password change or a sign-out revokes the API token and closes the sockets it concerns.
        pre_save.connect(signals.password_saving, sender=get_user_model(), dispatch_uid="baccarat-password-saving")
        post_save.connect(signals.password_saved, sender=get_user_model(), dispatch_uid="baccarat-password-saved")
        user_logged_out.connect(signals.signed_out, dispatch_uid="baccarat-signed-out")
