"""The audit trail (baccarat_site/audit.py): staff accounts, groups and grants are audited; commands record the
operating-system user and a mandatory reason; every entry stores who by name; and the database refuses to
change or delete an entry."""

from __future__ import annotations

import getpass
from io import StringIO

import pytest
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError

from tables.management.commands.load_demo import DEMO_REASON
from tables.models import Table
from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

User = get_user_model()


def entries_for(obj) -> list[LogEntry]:
    return list(LogEntry.objects.get_for_object(obj).order_by("id"))


@pytest.fixture
def boss(client):
    user = make_user("boss", "boss-pass-123", is_staff=True, is_superuser=True, email="boss@casino.test")
    client.force_login(user)
    return user


def user_form(user, **changes) -> dict:
    """The admin's user change form as posted for ``user``, with ``changes``."""
    data = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "is_active": "on",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "groups": [g.pk for g in user.groups.all()],
        "user_permissions": [p.pk for p in user.user_permissions.all()],
    }
    if user.is_staff:
        data["is_staff"] = "on"
    data.update(changes)
    return data


# ── 1. users, groups and grants ────────────────────────────────────────────


def test_adding_a_user_to_a_group_in_the_admin_records_an_entry_with_the_actor(client, boss):
    cashier = make_user("carol", is_staff=True)
    group = Group.objects.get(name="Cashiers")
    response = client.post(f"/admin/auth/user/{cashier.pk}/change/", user_form(cashier, groups=[group.pk]))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(cashier.groups.all()) == [group]

    [entry] = [e for e in entries_for(cashier) if "groups" in (e.changes or {})]
    assert entry.actor == boss
    assert entry.actor_email == "boss@casino.test"
    assert entry.additional_data["actor_name"] == "boss"
    assert entry.changes["groups"] == {"type": "m2m", "operation": "add", "objects": ["Cashiers"]}
    assert entry.remote_addr == "127.0.0.1"


def test_an_entry_records_the_client_s_address_never_one_it_claims(client, boss, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.10"]
    cashier = make_user("carol", is_staff=True)
    group = Group.objects.get(name="Cashiers")
    form = user_form(cashier, groups=[group.pk])
    # straight to the server: a claimed X-Forwarded-For (auditlog alone records its left-most) is not believed
    client.post(f"/admin/auth/user/{cashier.pk}/change/", form, HTTP_X_FORWARDED_FOR="198.51.100.66")
    # through the trusted proxy: the client it forwards
    client.post(
        f"/admin/auth/user/{cashier.pk}/change/",
        user_form(cashier, groups=[]),
        REMOTE_ADDR="10.0.0.10",
        HTTP_X_FORWARDED_FOR="198.51.100.66, 203.0.113.5",
        HTTP_X_FORWARDED_PORT="4444",
    )

    entries = [e for e in entries_for(cashier) if "groups" in (e.changes or {})]
    assert [(e.remote_addr, e.remote_port) for e in entries] == [("127.0.0.1", None), ("203.0.113.5", None)]


def test_a_users_permissions_and_staff_flags_are_audited_but_never_the_password_hash(client, boss):
    carol = make_user("carol")
    perm = Permission.objects.get(codename="view_bet")
    client.post(
        f"/admin/auth/user/{carol.pk}/change/",
        user_form(carol, is_staff="on", user_permissions=[perm.pk]),
    )
    carol.refresh_from_db()
    assert carol.is_staff
    changes = [e.changes for e in entries_for(carol)]
    assert any(c.get("is_staff") == ["False", "True"] for c in changes)
    assert any(c.get("user_permissions", {}).get("objects") == [str(perm)] for c in changes)

    carol.set_password("another-pass-456")
    carol.save()
    last = entries_for(carol)[-1]
    assert last.changes == {"password": ["(hidden)", "(hidden)"]}  # that it changed, never the hash
    assert not any(carol.password in str(e.changes) for e in LogEntry.objects.all())
    assert not any("last_login" in (e.changes or {}) for e in entries_for(carol))


def test_signing_in_is_not_recorded_as_a_change_of_the_user(client):
    carol = make_user("carol", "carol-pass-123")
    before = len(entries_for(carol))
    response = client.post("/accounts/login/", {"username": "carol", "password": "carol-pass-123"})
    assert response.status_code == 302
    carol.refresh_from_db()
    assert carol.last_login is not None
    assert len(entries_for(carol)) == before


def test_a_groups_permissions_changed_in_the_admin_are_audited_with_the_actor(client, boss):
    group = Group.objects.get(name="Auditors")
    perm = Permission.objects.get(codename="add_variant")
    kept = list(group.permissions.values_list("pk", flat=True))
    form = {"name": group.name, "permissions": [*kept, perm.pk]}
    response = client.post(f"/admin/auth/group/{group.pk}/change/", form)
    assert response.status_code == 302
    [entry] = [e for e in entries_for(group) if e.actor_id == boss.pk]
    assert entry.changes["permissions"]["operation"] == "add"
    assert entry.changes["permissions"]["objects"] == [str(perm)]
    assert entry.additional_data["actor_name"] == "boss"


# ── 2. commands: the OS user and a reason ──────────────────────────────────


@pytest.fixture
def paused_round():
    """A table whose round is being dealt with one bet on it: the commands have something to act on."""
    table = fast_table()
    alice = make_player("alice", "100.00")
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "10.00"))
    return table, round_


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


COMMANDS = {
    "table_pause": lambda table, round_: ["table_pause", str(table.pk)],
    "table_resume": lambda table, round_: ["table_resume", str(table.pk)],
    "round_cancel": lambda table, round_: ["round_cancel", str(round_.pk)],
    "table_close": lambda table, round_: ["table_close", str(table.pk)],
    "wallet_deposit": lambda table, round_: ["wallet_deposit", "alice", "5.00"],
    "create_player": lambda table, round_: ["create_player", "zed", "--password", "secret-pass-1"],
}


def _prepare(command: str, table: Table) -> None:
    if command == "table_resume":
        run("table_pause", str(table.pk), "--reason", "Scanner check")


@pytest.mark.parametrize("command", COMMANDS)
def test_each_operator_command_records_the_os_user_and_its_reason(paused_round, command):
    table, round_ = paused_round
    _prepare(command, table)
    before = LogEntry.objects.order_by("-id").values_list("id", flat=True).first() or 0
    run(*COMMANDS[command](table, round_), "--reason", "Ticket 4711")
    made = list(LogEntry.objects.filter(id__gt=before).order_by("id"))
    assert made, "the command's action is audited"
    for entry in made:
        assert entry.actor_id is None
        assert entry.additional_data["os_user"] == getpass.getuser()
        assert entry.additional_data["via"] == "command"
        assert entry.additional_data["command"] == command
        assert "Ticket 4711" in entry.additional_data["reason"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("reason", [None, "", "   "])
def test_each_operator_command_refuses_to_run_without_a_reason(paused_round, command, reason):
    table, round_ = paused_round
    _prepare(command, table)
    before = LogEntry.objects.count()
    state = (Table.objects.get(pk=table.pk).status, type(round_).objects.get(pk=round_.pk).state)
    args = COMMANDS[command](table, round_) + ([] if reason is None else ["--reason", reason])
    with pytest.raises(CommandError, match="reason"):
        run(*args)
    assert LogEntry.objects.count() == before
    assert (Table.objects.get(pk=table.pk).status, type(round_).objects.get(pk=round_.pk).state) == state
    assert not User.objects.filter(username="zed").exists()


def test_load_demo_records_its_changes_with_the_os_user_and_a_fixed_reason():
    run("load_demo")
    made = list(LogEntry.objects.filter(additional_data__command="load_demo"))
    kinds = {e.content_type.model for e in made}
    assert {"variant", "table", "user", "wallet"} <= kinds
    assert all(e.additional_data["os_user"] == getpass.getuser() for e in made)
    assert all(e.additional_data["reason"] for e in made)
    assert any(e.additional_data["reason"] == DEMO_REASON for e in made)


# ── 3. who, by name; 4. append-only ────────────────────────────────────────


@pytest.fixture
def staff_who_acted(client, boss):
    """A staff user who paused a table from the admin."""
    operator = make_user("olga", is_staff=True, is_superuser=True)
    table = fast_table()
    client.force_login(operator)
    client.post(f"/admin/tables/table/{table.pk}/pause/", {"reason": "Card scanner check"})
    client.force_login(boss)
    [entry] = [e for e in entries_for(table) if e.additional_data.get("action") == "table.pause"]
    return operator, entry


def test_an_entry_stores_the_actors_name_and_the_audit_list_shows_it_after_a_rename(client, staff_who_acted):
    operator, entry = staff_who_acted
    assert entry.actor == operator
    assert entry.additional_data["actor_name"] == "olga"
    operator.username = "renamed"
    operator.save()
    page = client.get("/admin/auditlog/logentry/").content.decode()
    assert ">olga</a>" in page
    found = client.get("/admin/auditlog/logentry/", {"q": "olga"})
    assert entry in found.context["cl"].result_list  # searchable by the name it stored


def test_a_staff_user_who_acted_cannot_be_deleted_and_the_entries_still_say_who(client, staff_who_acted):
    operator, entry = staff_who_acted
    page = client.get(f"/admin/auth/user/{operator.pk}/delete/").content.decode()
    assert "deactivate the account" in page
    response = client.post(f"/admin/auth/user/{operator.pk}/delete/", {"post": "yes"})
    assert response.status_code == 200  # the protected page again, nothing deleted
    assert User.objects.filter(pk=operator.pk).exists()
    with pytest.raises(ProtectedError, match="deactivate"), transaction.atomic():
        operator.delete()
    entry.refresh_from_db()
    assert (entry.actor_id, entry.additional_data["actor_name"]) == (operator.pk, "olga")

    # Deactivated instead: can no longer sign in, and the trail still names them.
    response = client.post(f"/admin/auth/user/{operator.pk}/change/", user_form(operator, is_active=""))
    operator.refresh_from_db()
    assert operator.is_active is False
    assert "olga" in client.get("/admin/auditlog/logentry/").content.decode()


def test_an_entry_with_no_account_shows_who_from_what_it_stored(client, boss):
    table = fast_table()
    run("table_pause", str(table.pk), "--reason", "Night close")
    page = client.get("/admin/auditlog/logentry/").content.decode()
    assert f"os user {getpass.getuser()} (command table_pause)" in page


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE auditlog_logentry SET changes_text = 'edited' WHERE id = %s",
        "UPDATE auditlog_logentry SET actor_id = NULL WHERE id = %s",
        "DELETE FROM auditlog_logentry WHERE id = %s",
    ],
)
def test_the_database_refuses_to_update_or_delete_an_audit_entry(staff_who_acted, sql):
    _operator, entry = staff_who_acted
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [entry.pk])
    entry.refresh_from_db()
    assert entry.changes_text == ""
    assert entry.actor_id is not None


def test_the_orm_cannot_delete_entries_either(staff_who_acted):
    with pytest.raises(IntegrityError), transaction.atomic():
        LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(Table)).delete()
    assert LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(Table)).exists()
