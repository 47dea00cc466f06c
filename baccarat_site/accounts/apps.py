from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "baccarat_site.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
