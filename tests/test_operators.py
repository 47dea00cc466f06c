"""Who reaches the admin, and what nobody can do there.

Players never reach it; each staff role (baccarat_site/roles.py: Table operators, Cashiers, Supervisors,
Auditors, made by migration accounts 0002) holds just the rights its duty needs and sees only the actions it
may use; staff in no role are refused the tables and wallets; and nothing in the admin changes or deletes a
bet, a round, a shoe, a ledger transaction or entry, or an audit entry (not even for a superuser).
"""

from __future__ import annotations

from importlib import import_module
from io import StringIO
from types import SimpleNamespace

import pytest
from auditlog.models import LogEntry
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.urls import reverse

from baccarat_site import roles
from tables.models import Bet, Round, Shoe
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place
from wallets.models import LedgerEntry, LedgerTransaction, Wallet

pytestmark = pytest.mark.django_db

LOGIN = reverse("admin:login")


TABLE_OPERATOR_PERMISSIONS = {
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
    "tables.view_supervisorcall",
    "tables.view_shoe",
    "tables.view_round",
    "tables.view_bet",
    "tables.view_riskalert",
    "tables.acknowledge_riskalert",
    "tables.view_chatmessage",
    "tables.moderate_chat",
    "tables.view_chatmute",
    "tables.view_tablelimit",
    "tables.add_tablelimit",
    "tables.change_tablelimit",
    "tables.delete_tablelimit",
}
CASHIER_PERMISSIONS = {
    "wallets.view_wallet",
    "wallets.move_money",
    "wallets.view_ledgertransaction",
    "wallets.view_ledgerentry",
    "wallets.view_moneyrequest",
}
SUPERVISOR_EXTRA = {
    "tables.supervise_table",  # a live table's supervisor calls are answered by Supervisors only
    "wallets.approve_money",
    "wallets.view_moneyalert",
    "wallets.acknowledge_moneyalert",
    "auth.view_user",
    "accounts.view_signin",
    "accounts.view_restriction",
    "accounts.suspend_player",
    "accounts.view_player",
    "accounts.view_playernote",
    "accounts.add_playernote",
    "accounts.view_playerlimit",
    "accounts.add_playerlimit",
    "accounts.change_playerlimit",
    "accounts.view_playlimit",
}


def group_permissions(name: str) -> set[str]:
    group = Group.objects.get(name=name)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}


def make_staff(role: str, username: str | None = None):
    user = make_user(username or role.lower().replace(" ", "-"), is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def make_operator(username: str = "op"):
    return make_staff(roles.TABLE_OPERATORS, username)


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


# ── the roles ───────────────────────────────────────────────────────────────


def test_each_role_holds_exactly_the_permissions_of_its_duty():
    assert group_permissions(roles.TABLE_OPERATORS) == TABLE_OPERATOR_PERMISSIONS
    assert group_permissions(roles.CASHIERS) == CASHIER_PERMISSIONS
    assert group_permissions(roles.SUPERVISORS) == TABLE_OPERATOR_PERMISSIONS | CASHIER_PERMISSIONS | SUPERVISOR_EXTRA
    auditor = group_permissions(roles.AUDITORS)
    assert all(name.split(".")[1].startswith("view_") for name in auditor)
    every_view = {
        f"{p.content_type.app_label}.{p.codename}"
        for p in Permission.objects.filter(
            content_type__app_label__in=roles.AUDITED_APPS, codename__startswith="view_"
        ).select_related("content_type")
    }
    assert auditor == every_view
    assert {"auditlog.view_logentry", "wallets.view_ledgerentry", "tables.view_bet"} <= auditor
    # Nobody but a supervisor both runs tables and moves money.
    for role in (roles.TABLE_OPERATORS, roles.CASHIERS, roles.AUDITORS):
        held = group_permissions(role)
        assert not ({"wallets.move_money", "tables.change_table"} <= held), role
    assert not Group.objects.filter(name="Operators").exists()


def test_a_permission_granted_by_hand_is_taken_back_at_the_next_migrate():
    group = Group.objects.get(name=roles.CASHIERS)
    group.permissions.add(Permission.objects.get(codename="change_table"))
    roles.sync_roles()
    assert group_permissions(roles.CASHIERS) == CASHIER_PERMISSIONS


def test_the_migration_turns_the_old_operators_into_table_operators_on_a_fresh_database():
    # As on a database of the previous release: one Operators group, none of the new permissions yet.
    Group.objects.filter(name__in=list(roles.ROLES)).delete()
    Permission.objects.filter(codename__in=["move_money", "approve_money"]).delete()
    old = Group.objects.create(name="Operators")
    veteran = make_user("veteran", is_staff=True)
    veteran.groups.add(old)
    migration = import_module("baccarat_site.accounts.migrations.0002_staff_roles")
    historical = MigrationLoader(connection).project_state(("accounts", "0002_staff_roles")).apps

    migration.forwards(historical, SimpleNamespace(connection=connection))
    migration.forwards(historical, SimpleNamespace(connection=connection))  # again: harmless

    assert set(Group.objects.values_list("name", flat=True)) == set(roles.ROLES)
    assert list(veteran.groups.values_list("name", flat=True)) == [roles.TABLE_OPERATORS]
    assert group_permissions(roles.CASHIERS) >= {"wallets.move_money"}


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


def assert_read_only(client, records, names=RECORDED) -> None:
    """Every recorded row of ``names`` can be listed and viewed, never added, changed or deleted."""
    for name in names:
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
    assert_read_only(client, records, ("bet", "round", "shoe"))
    client.force_login(make_staff(roles.CASHIERS))
    assert_read_only(client, records, ("ledgerentry", "ledgertransaction"))


def test_the_demo_operator_a_superuser_cannot_change_or_delete_them_either(client, records):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    assert_read_only(client, records)


def test_an_auditor_views_everything_recorded_but_changes_nothing_either(client, records):
    client.force_login(make_staff(roles.AUDITORS))
    assert_read_only(client, records)


def action_choices(response) -> set[str]:
    form = response.context["action_form"]
    return set(dict(form.fields["action"].choices)) - {""} if form is not None else set()


# What each role may open: (URL name, args) → allowed for which roles.
TO = roles.TABLE_OPERATORS
CA = roles.CASHIERS
SU = roles.SUPERVISORS
AU = roles.AUDITORS
PAGES = {
    "admin:tables_variant_changelist": {TO, SU, AU},
    "admin:tables_variant_add": {TO, SU},
    "admin:tables_table_changelist": {TO, SU, AU},
    "admin:tables_table_add": {TO, SU},
    "admin:tables_round_changelist": {TO, SU, AU},
    "admin:tables_bet_changelist": {TO, SU, AU},
    "admin:wallets_wallet_changelist": {CA, SU, AU},
    "admin:wallets_ledgerentry_changelist": {CA, SU, AU},
    "admin:wallets_moneyrequest_changelist": {CA, SU, AU},
    "admin:auditlog_logentry_changelist": {AU},
    "admin:auth_user_changelist": {SU, AU},
    "admin_floor:floor_live": {TO, SU, AU},
    "admin_floor:floor_tables_report": {TO, SU, AU},
    "admin_floor:floor_players_report": {CA, SU, AU},
}


@pytest.mark.parametrize("role", [TO, CA, SU, AU])
def test_each_role_reaches_the_pages_of_its_duty_and_is_refused_the_others(client, records, role):
    client.force_login(make_staff(role))
    for name, allowed in PAGES.items():
        status = client.get(reverse(name)).status_code
        assert status == (200 if role in allowed else 403), (role, name, status)


@pytest.mark.parametrize(
    ("role", "wallet_actions", "request_actions"),
    [
        (TO, None, None),
        (CA, {"deposit", "withdraw", "adjust"}, set()),
        (SU, {"deposit", "withdraw", "adjust"}, {"approve", "reject"}),
        (AU, set(), set()),
    ],
)
def test_staff_see_only_the_money_actions_they_may_use(client, records, role, wallet_actions, request_actions):
    client.force_login(make_staff(role))
    wallets = client.get(reverse("admin:wallets_wallet_changelist"))
    requests = client.get(reverse("admin:wallets_moneyrequest_changelist"))
    if wallet_actions is None:
        assert (wallets.status_code, requests.status_code) == (403, 403)
        return
    assert action_choices(wallets) == wallet_actions
    assert action_choices(requests) == request_actions


def test_a_table_operator_cannot_move_money_even_by_posting_the_action(client, records):
    client.force_login(make_operator())
    wallet = Wallet.objects.filter(kind="player").first()
    before = wallet.balance
    response = client.post(
        reverse("admin:wallets_wallet_changelist"),
        {"action": "deposit", "_selected_action": [wallet.pk], "apply": "Go", "amount": "5.00",
         "reason": "Paying myself", "key": "k" * 32},
    )  # fmt: skip
    assert response.status_code == 403
    wallet.refresh_from_db()
    assert wallet.balance == before


def test_staff_in_no_role_are_refused_the_tables_and_wallets(client, records):
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


def test_the_demo_has_one_staff_account_per_role_and_none_is_a_superuser(settings):
    out = StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=StringIO())  # again: harmless
    users = get_user_model().objects
    staff = (("operator", TO), ("cashier", CA), ("supervisor", SU), ("auditor", AU), ("dealer", roles.DEALERS))
    for username, role in staff:
        user = users.get(username=username)
        assert list(user.groups.values_list("name", flat=True)) == [role]
        assert (user.is_staff, user.is_superuser) == (True, False)
    assert users.get(username="dealer").check_password("dealer-pass-123")
    assert LedgerTransaction.objects.filter(reference__startswith="demo:initial", kind="deposit").count() == 3
    assert "Live Baccarat 1" in out.getvalue()
    assert "dealer" in out.getvalue()


def test_an_auditor_sees_the_tables_and_the_floor_without_their_controls(client, records):
    client.force_login(make_staff(AU))
    tables = client.get(reverse("admin:tables_table_changelist"))
    assert tables.status_code == 200
    assert "column-operate" not in tables.content.decode()
    floor = client.get(reverse("admin_floor:floor_live"))
    assert floor.status_code == 200
    assert "/pause/" not in floor.content.decode()
    client.force_login(make_operator())
    assert "column-operate" in client.get(reverse("admin:tables_table_changelist")).content.decode()
    assert "/pause/" in client.get(reverse("admin_floor:floor_live")).content.decode()
