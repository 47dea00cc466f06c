"""Who reaches the admin, and what nobody can do there.

Players never reach it; the Operators group (migration tables 0005) holds just the rights an operator needs;
staff without the group are refused the tables and wallets; and nothing in the admin changes or deletes a
bet, a round, a shoe, a ledger transaction or entry, or an audit entry (not even for a superuser).
"""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

import pytest
from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.urls import reverse

from tables.models import Bet, Round, Shoe
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place
from wallets.models import LedgerEntry, LedgerTransaction

pytestmark = pytest.mark.django_db

OPERATOR_PERMISSIONS = {
    "tables.view_variant",
    "tables.add_variant",
    "tables.change_variant",
    "tables.delete_variant",
    "tables.view_variantbet",
    "tables.add_variantbet",
    "tables.change_variantbet",
    "tables.delete_variantbet",
    "tables.view_table",
    "tables.add_table",
    "tables.change_table",
    "tables.view_shoe",
    "tables.view_round",
    "tables.view_bet",
    "wallets.view_wallet",
    "wallets.change_wallet",
    "wallets.view_ledgertransaction",
    "wallets.view_ledgerentry",
    "auditlog.view_logentry",
}
LOGIN = reverse("admin:login")


def group_permissions() -> set[str]:
    group = Group.objects.get(name="Operators")
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}


def make_operator(username: str = "op"):
    user = make_user(username, is_staff=True)
    user.groups.add(Group.objects.get(name="Operators"))
    return user


@pytest.fixture
def records(db):
    """One of each recorded row: a settled bet, its round and shoe, a ledger transaction and entry, an audit entry."""
    table, clock = fast_table("Records"), Clock()
    alice = make_player("alice")  # a deposit: a ledger transaction, its entries and an audit entry
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    drive_to_state(table, clock, "settled")
    bet = Bet.objects.get(round=round_)
    assert bet.status != Bet.Status.OPEN
    return {
        "bet": bet,
        "round": Round.objects.get(pk=round_.pk),
        "shoe": Shoe.objects.get(pk=round_.shoe_id),
        "ledgertransaction": LedgerTransaction.objects.filter(kind="deposit").first(),
        "ledgerentry": LedgerEntry.objects.first(),
        "logentry": LogEntry.objects.first(),
    }


def admin_url(obj, view: str) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{view}", args=[obj.pk])


def changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


# ── the group ───────────────────────────────────────────────────────────────


def test_the_operators_group_exists_after_migrate_with_just_the_operator_permissions():
    assert group_permissions() == OPERATOR_PERMISSIONS


def test_the_migration_creates_the_permissions_it_needs_on_a_fresh_database():
    # As on a fresh database: none of these permissions exist yet when the migration runs.
    Permission.objects.filter(content_type__app_label__in=["tables", "wallets", "auditlog"]).delete()
    Group.objects.filter(name="Operators").delete()
    migration = import_module("tables.migrations.0005_operators_group")
    historical = MigrationLoader(connection).project_state(("tables", "0005_operators_group")).apps

    migration.create_operators_group(historical, SimpleNamespace(connection=connection))
    migration.create_operators_group(historical, SimpleNamespace(connection=connection))  # again: harmless

    assert group_permissions() == OPERATOR_PERMISSIONS
    assert Group.objects.filter(name="Operators").count() == 1


# ── players ─────────────────────────────────────────────────────────────────


def every_admin_url(records) -> list[str]:
    urls = [reverse("admin:index"), reverse("admin:tables_bet_export")]
    urls += [reverse(name) for name in ("admin_floor:floor_live", "admin_floor:floor_tables_report")]
    for model in admin.site._registry:
        urls.append(changelist(model))
        urls.append(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add"))
        obj = records.get(model._meta.model_name) or model._default_manager.first()
        if obj is not None:
            urls += [admin_url(obj, "change"), admin_url(obj, "delete"), admin_url(obj, "history")]
    return urls


def test_a_player_is_sent_to_the_admin_login_from_every_admin_page(client, records):
    player = make_player("bob")
    client.force_login(player)
    urls = every_admin_url(records)
    assert len(urls) > 30
    for url in urls:
        for response in (client.get(url), client.post(url, {"action": "delete_selected"})):
            assert response.status_code == 302, url
            assert response["Location"].startswith(f"{LOGIN}?next="), url
    for model in (Bet, Round, Shoe, LedgerEntry, LedgerTransaction, LogEntry):
        assert model.objects.exists()


# ── operators ───────────────────────────────────────────────────────────────

RECORDED = ("bet", "round", "shoe", "ledgerentry", "ledgertransaction", "logentry")


def assert_read_only(client, records) -> None:
    """Every recorded row can be listed and viewed, never added, changed or deleted."""
    for name in RECORDED:
        obj = records[name]
        model = type(obj)
        before = model.objects.filter(pk=obj.pk).values().get()
        assert client.get(changelist(model)).status_code == 200, name
        view = client.get(admin_url(obj, "change"))
        assert view.status_code == 200, name
        assert 'name="_save"' not in view.content.decode(), name
        assert client.post(admin_url(obj, "change"), {}).status_code == 403, name
        assert client.get(admin_url(obj, "delete")).status_code == 403, name
        assert client.post(admin_url(obj, "delete"), {"post": "yes"}).status_code == 403, name
        add = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
        assert client.get(add).status_code == 403, name
        assert client.post(add, {}).status_code == 403, name
        client.post(changelist(model), {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"})
        assert model.objects.filter(pk=obj.pk).values().get() == before, name


def test_an_operator_views_rounds_bets_and_shoes_but_nothing_recorded_can_be_changed_or_deleted(client, records):
    client.force_login(make_operator())
    assert_read_only(client, records)


def test_the_demo_operator_a_superuser_cannot_change_or_delete_them_either(client, records):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    assert_read_only(client, records)


def test_an_operator_reaches_variants_tables_wallets_the_money_actions_and_the_audit_trail(client, records):
    client.force_login(make_operator())
    for name in ("variant", "table"):
        assert client.get(reverse(f"admin:tables_{name}_changelist")).status_code == 200, name
        assert client.get(reverse(f"admin:tables_{name}_add")).status_code == 200, name
    wallets = client.get(reverse("admin:wallets_wallet_changelist"))
    assert wallets.status_code == 200
    actions = dict(wallets.context["action_form"].fields["action"].choices)
    assert {"deposit", "withdraw", "adjust"} <= set(actions)
    assert client.get(reverse("admin:auditlog_logentry_changelist")).status_code == 200
    assert client.get(reverse("admin_floor:floor_live")).status_code == 200


def test_staff_outside_the_operators_group_are_refused_the_tables_and_wallets(client, records):
    client.force_login(make_user("clerk", is_staff=True))
    models = [m for m in admin.site._registry if m._meta.app_label in ("tables", "wallets", "auditlog")]
    assert {Bet, Round, Shoe, LedgerEntry, LedgerTransaction, LogEntry} <= set(models)
    for model in models:
        assert client.get(changelist(model)).status_code == 403, model
    for name in RECORDED:
        assert client.get(admin_url(records[name], "change")).status_code == 403, name
    assert client.get(reverse("admin:tables_bet_export")).status_code == 403
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert index.context["app_list"] == []
