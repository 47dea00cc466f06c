"""The "Operators" group: just the rights an operator needs in the admin.

Variants and their bet rows (view/add/change/delete), tables (view/add/change), shoes, rounds and bets
(view: those rows change only through the services), wallets (view, and change: the Deposit, Withdraw and
Adjust actions require ``wallets.change_wallet``), the ledger (view) and the audit trail (view).

On a fresh database the permissions do not exist yet when this runs (``post_migrate`` creates them after
every migration), so they are created first, for the apps concerned, from the historical models.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Operators"

PERMISSIONS = {
    "tables": {
        "variant": ("view", "add", "change", "delete"),
        "variantbet": ("view", "add", "change", "delete"),
        "table": ("view", "add", "change"),
        "shoe": ("view",),
        "round": ("view",),
        "bet": ("view",),
    },
    "wallets": {
        "wallet": ("view", "change"),
        "ledgertransaction": ("view",),
        "ledgerentry": ("view",),
    },
    "auditlog": {
        "logentry": ("view",),
    },
}


def _create_permissions(apps, using):
    for label in PERMISSIONS:
        app_config = apps.get_app_config(label)
        original = getattr(app_config, "models_module", None)  # a historical AppConfigStub has none
        app_config.models_module = original or True  # create_permissions skips an app without one
        try:
            create_permissions(app_config, apps=apps, verbosity=0, using=using)
        finally:
            app_config.models_module = original


def create_operators_group(apps, schema_editor):
    using = schema_editor.connection.alias
    _create_permissions(apps, using)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    wanted = []
    for app_label, models in PERMISSIONS.items():
        for model, actions in models.items():
            for action in actions:
                wanted.append(
                    Permission.objects.using(using).get(
                        content_type__app_label=app_label,
                        content_type__model=model,
                        codename=f"{action}_{model}",
                    )
                )
    group, _ = Group.objects.using(using).get_or_create(name=GROUP)
    group.permissions.set(wanted)


def remove_operators_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.using(schema_editor.connection.alias).filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auditlog", "0017_add_actor_email"),
        ("wallets", "0002_ledger_guards"),
        ("tables", "0004_variant_typed_terms"),
    ]

    operations = [
        migrations.RunPython(create_operators_group, remove_operators_group),
    ]
