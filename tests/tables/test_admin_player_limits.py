"""Personal limits in the admin: only Supervisors set them, every change is audited with who, the limit before and
after and why, and nothing invalid is saved (baccarat_site/accounts/admin.py, baccarat_site/roles.py)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group

from baccarat_site import roles
from baccarat_site.accounts.models import PlayerLimit
from baccarat_site.accounts.services import player_limit_set
from tests.factories import make_user

ADD = "/admin/accounts/playerlimit/add/"
LIST = "/admin/accounts/playerlimit/"


def change_url(user) -> str:
    return f"/admin/accounts/playerlimit/{user.pk}/change/"


@pytest.fixture
def staff(client, db):
    """``staff(role)`` → a staff member in that role's group, signed in on ``client``."""

    def make(role: str, username: str | None = None):
        user = make_user(username or role.lower().replace(" ", "-"), is_staff=True)
        user.groups.add(Group.objects.get(name=role))
        client.force_login(user)
        return user

    return make


@pytest.fixture
def alice(db):
    return make_user("alice")


def audit_entries(limit: PlayerLimit) -> list[LogEntry]:
    return list(LogEntry.objects.get_for_object(limit).order_by("id"))


def test_a_supervisor_sets_a_personal_maximum_and_the_change_is_audited(client, staff, alice):
    supervisor = staff(roles.SUPERVISORS)
    response = client.post(ADD, {"user": alice.pk, "max_stake": "150.00", "reason": "restricted at her request"})
    assert response.status_code == 302, response.content.decode()[:3000]
    limit = PlayerLimit.objects.get(user=alice)
    assert (limit.max_stake, limit.reason) == (Decimal("150.00"), "restricted at her request")
    assert limit.updated_by == supervisor
    (entry,) = audit_entries(limit)
    assert entry.actor == supervisor
    assert entry.changes_dict == {"max_stake": [None, "150.00"]}
    assert entry.additional_data == {
        "action": "player_limit.set",
        "reason": "restricted at her request",
        "actor_name": supervisor.username,
    }

    response = client.post(change_url(alice), {"max_stake": "", "reason": "restriction lifted after review"})
    assert response.status_code == 302, response.content.decode()[:3000]
    limit.refresh_from_db()
    assert limit.max_stake is None
    last = audit_entries(limit)[-1]
    assert last.changes_dict == {"max_stake": ["150.00", None]}
    assert last.additional_data == {
        "action": "player_limit.clear",
        "reason": "restriction lifted after review",
        "actor_name": supervisor.username,
    }


@pytest.mark.parametrize("role", [roles.CASHIERS, roles.TABLE_OPERATORS])
def test_a_cashier_or_a_table_operator_cannot_set_or_change_a_personal_limit(client, staff, alice, role):
    player_limit_set(user=alice, max_stake=Decimal("100.00"), reason="set by a supervisor", actor=None)
    staff(role)
    assert client.get(LIST).status_code == 403
    added = client.post(ADD, {"user": alice.pk, "max_stake": "5000.00", "reason": "let her play more"})
    assert added.status_code == 403
    refused = client.post(change_url(alice), {"max_stake": "5000.00", "reason": "let her play more"})
    assert refused.status_code == 403
    assert PlayerLimit.objects.get(user=alice).max_stake == Decimal("100.00")
    assert len(audit_entries(PlayerLimit.objects.get(user=alice))) == 1


def test_an_auditor_reads_personal_limits_and_changes_nothing(client, staff, alice):
    player_limit_set(user=alice, max_stake=Decimal("100.00"), reason="set by a supervisor", actor=None)
    staff(roles.AUDITORS)
    assert "100.00" in client.get(LIST).content.decode()
    assert client.post(change_url(alice), {"max_stake": "1.00", "reason": "an auditor trying"}).status_code == 403
    assert PlayerLimit.objects.get(user=alice).max_stake == Decimal("100.00")


def test_a_supervisor_cannot_delete_a_personal_limit(client, staff, alice):
    player_limit_set(user=alice, max_stake=Decimal("100.00"), reason="set by a supervisor", actor=None)
    staff(roles.SUPERVISORS)
    url = f"/admin/accounts/playerlimit/{alice.pk}/delete/"
    assert client.post(url, {"post": "yes"}).status_code == 403
    assert PlayerLimit.objects.filter(user=alice).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"max_stake": "0.00", "reason": "restricted at request"}, "Between 0.01 and"),
        ({"max_stake": "-5", "reason": "restricted at request"}, "no sign"),
        ({"max_stake": "10.001", "reason": "restricted at request"}, "at most two decimals"),
        ({"max_stake": "abc", "reason": "restricted at request"}, "plain digits"),
        ({"max_stake": "5e2", "reason": "restricted at request"}, "no exponent"),
        ({"max_stake": "1,000", "reason": "restricted at request"}, "no thousands separator"),
        ({"max_stake": "100.00", "reason": ""}, "This field is required"),
        ({"max_stake": "100.00", "reason": "why"}, "at least 5 characters"),
    ],
)
def test_an_invalid_limit_is_refused_with_a_message_and_nothing_is_saved(client, staff, alice, data, message):
    staff(roles.SUPERVISORS)
    response = client.post(ADD, {"user": alice.pk, **data})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not PlayerLimit.objects.exists()
    assert not LogEntry.objects.filter(content_type__model="playerlimit").exists()


def test_a_supervisor_cannot_limit_a_staff_account_or_themselves(client, staff):
    supervisor = staff(roles.SUPERVISORS)
    cashier = make_user("cashier", is_staff=True)
    for target in (supervisor, cashier):
        response = client.post(ADD, {"user": target.pk, "max_stake": "10.00", "reason": "restricted at request"})
        assert response.status_code == 200
        assert "a personal limit is for players" in response.content.decode()
    assert not PlayerLimit.objects.exists()


def test_a_player_has_one_limit_row(client, staff, alice):
    player_limit_set(user=alice, max_stake=Decimal("100.00"), reason="set by a supervisor", actor=None)
    staff(roles.SUPERVISORS)
    response = client.post(ADD, {"user": alice.pk, "max_stake": "10.00", "reason": "restricted at request"})
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert PlayerLimit.objects.get(user=alice).max_stake == Decimal("100.00")


def test_the_supervisors_add_and_change_pages_ask_for_a_reason_and_show_the_last_one(client, staff, alice):
    staff(roles.SUPERVISORS)
    add = client.get(ADD)
    assert add.status_code == 200
    assert 'name="reason"' in add.content.decode()
    player_limit_set(user=alice, max_stake=Decimal("100.00"), reason="set by a supervisor", actor=None)
    change = client.get(change_url(alice)).content.decode()
    assert "set by a supervisor" in change  # the last reason, read-only
    (reason_input,) = re.findall(r'<input[^>]*name="reason"[^>]*>', change)
    assert "set by a supervisor" not in reason_input  # each change states its own reason
