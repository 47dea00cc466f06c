from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "baccarat_site.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from baccarat_site.roles import sync_roles_after_migrate

        # The last app in INSTALLED_APPS: by its post_migrate every app's permissions exist.
        post_migrate.connect(sync_roles_after_migrate, sender=self, dispatch_uid="baccarat-sync-roles")
