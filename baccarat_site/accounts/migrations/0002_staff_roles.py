"""Staff roles (baccarat_site/roles.py): the groups Table operators, Cashiers, Supervisors and Auditors.

The one "Operators" group of migration tables 0005 ran tables *and* moved money; its members become Table
operators (no money), and the group is removed. Backwards, the members go back to a recreated "Operators"
group with its old rights. Permissions are created first, as in tables 0005, because ``post_migrate`` makes
them only after every migration has run.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from baccarat_site import roles

OLD_GROUP = "Operators"
APPS = ("tables", "wallets", "auditlog", "accounts", "auth")


def _create_permissions(apps, using):
    for label in APPS:
        app_config = apps.get_app_config(label)
        original = getattr(app_config, "models_module", None)  # a historical AppConfigStub has none
        app_config.models_module = original or True  # create_permissions skips an app without one
        try:
            create_permissions(app_config, apps=apps, verbosity=0, using=using)
        finally:
            app_config.models_module = original


def forwards(apps, schema_editor):
    using = schema_editor.connection.alias
    _create_permissions(apps, using)
    roles.sync_roles(apps, using)
    Group = apps.get_model("auth", "Group")
    old = Group.objects.using(using).filter(name=OLD_GROUP).first()
    if old is not None:
        operators = Group.objects.using(using).get(name=roles.TABLE_OPERATORS)
        operators.user_set.add(*old.user_set.all())
        old.delete()


def backwards(apps, schema_editor):
    using = schema_editor.connection.alias
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    old, _ = Group.objects.using(using).get_or_create(name=OLD_GROUP)
    rights = [
        ("tables", "view_variant"), ("tables", "add_variant"), ("tables", "change_variant"),
        ("tables", "delete_variant"), ("tables", "view_variantbet"), ("tables", "add_variantbet"),
        ("tables", "change_variantbet"), ("tables", "delete_variantbet"), ("tables", "view_table"),
        ("tables", "add_table"), ("tables", "change_table"), ("tables", "view_shoe"), ("tables", "view_round"),
        ("tables", "view_bet"), ("wallets", "view_wallet"), ("wallets", "change_wallet"),
        ("wallets", "view_ledgertransaction"), ("wallets", "view_ledgerentry"), ("auditlog", "view_logentry"),
    ]  # fmt: skip
    old.permissions.set([Permission.objects.using(using).get(content_type__app_label=a, codename=c) for a, c in rights])
    for role in roles.ROLES:
        group = Group.objects.using(using).filter(name=role).first()
        if group is not None:
            if role == roles.TABLE_OPERATORS:
                old.user_set.add(*group.user_set.all())
            group.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auditlog", "0017_add_actor_email"),
        ("tables", "0008_round_stakes"),
        ("wallets", "0007_staff_money_permissions"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
