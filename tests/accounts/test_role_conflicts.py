"""Separation of duties: one person cannot hold conflicting roles (``baccarat_site.roles.CONFLICTS``: Dealers and
Auditors with any other role, Supervisors with Cashiers), refused with the conflict named whichever way the group
is added: the admin's user form, ``user.groups.add``, ``group.user_set.add``."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import transaction
from django.urls import reverse

from baccarat_site import roles
from tests.factories import make_staff, make_user


def group(name: str) -> Group:
    return Group.objects.get(name=name)


def groups_of(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def test_the_declared_conflicts_are_symmetric_and_as_documented():
    others = set(roles.STAFF_GROUPS)
    assert roles.CONFLICTS[roles.DEALERS] == others - {roles.DEALERS}
    assert roles.CONFLICTS[roles.AUDITORS] == others - {roles.AUDITORS}
    assert roles.CONFLICTS[roles.SUPERVISORS] == {roles.CASHIERS, roles.DEALERS, roles.AUDITORS}
    assert roles.CONFLICTS[roles.CASHIERS] == {roles.SUPERVISORS, roles.DEALERS, roles.AUDITORS}
    assert roles.CONFLICTS[roles.TABLE_OPERATORS] == {roles.DEALERS, roles.AUDITORS}
    for role, conflicting in roles.CONFLICTS.items():
        assert all(role in roles.CONFLICTS[other] for other in conflicting)


@pytest.mark.parametrize(
    ("held", "added"),
    [
        (roles.CASHIERS, roles.SUPERVISORS),
        (roles.SUPERVISORS, roles.CASHIERS),
        (roles.DEALERS, roles.SUPERVISORS),
        (roles.SUPERVISORS, roles.DEALERS),
        (roles.TABLE_OPERATORS, roles.DEALERS),
        (roles.AUDITORS, roles.TABLE_OPERATORS),
        (roles.CASHIERS, roles.AUDITORS),
    ],
)
def test_adding_a_conflicting_group_to_a_user_in_code_is_refused_with_the_conflict_named(db, held, added):
    user = make_staff("sam", held)
    with pytest.raises(roles.RoleConflict) as refused, transaction.atomic():
        user.groups.add(group(added))
    assert refused.value.code == "role_conflict"
    assert f"{min(held, added)} and {max(held, added)}" in refused.value.detail
    assert "sam" in refused.value.detail
    assert groups_of(user) == {held}


@pytest.mark.parametrize(("held", "added"), [(roles.CASHIERS, roles.SUPERVISORS), (roles.SUPERVISORS, roles.CASHIERS)])
def test_adding_a_user_to_a_conflicting_group_from_the_groups_side_is_refused(db, held, added):
    user = make_staff("sam", held)
    bystander = make_user("newcomer", is_staff=True)
    with pytest.raises(roles.RoleConflict) as refused, transaction.atomic():
        group(added).user_set.add(bystander, user)
    assert "sam" in refused.value.detail
    assert groups_of(user) == {held}
    assert groups_of(bystander) == set()  # nothing was added for anyone


def test_two_conflicting_groups_at_once_and_a_set_are_refused_too(db):
    user = make_user("sam", is_staff=True)
    with pytest.raises(roles.RoleConflict), transaction.atomic():
        user.groups.add(group(roles.CASHIERS), group(roles.SUPERVISORS))
    assert groups_of(user) == set()
    with pytest.raises(roles.RoleConflict), transaction.atomic():
        user.groups.set([group(roles.DEALERS), group(roles.TABLE_OPERATORS)])
    assert groups_of(user) == set()


def test_roles_that_do_not_conflict_are_added_and_a_swap_by_set_is_allowed(db):
    user = make_staff("sam", roles.CASHIERS)
    user.groups.add(group(roles.TABLE_OPERATORS))
    assert groups_of(user) == {roles.CASHIERS, roles.TABLE_OPERATORS}
    user.groups.set([group(roles.SUPERVISORS)])  # the old roles go first, then the new one comes
    assert groups_of(user) == {roles.SUPERVISORS}
    user.groups.add(Group.objects.create(name="Newsletter readers"))  # not a role: no conflict
    assert groups_of(user) == {roles.SUPERVISORS, "Newsletter readers"}


def user_form(client, user, groups: list[str]):
    url = reverse("admin:auth_user_change", args=[user.pk])
    form = client.get(url).context["adminform"].form
    data = {
        "username": user.username,
        "is_active": "on",
        "is_staff": "on",
        "groups": [group(name).pk for name in groups],
        "date_joined_0": form.initial["date_joined"].strftime("%Y-%m-%d"),
        "date_joined_1": form.initial["date_joined"].strftime("%H:%M:%S"),
    }
    return client.post(url, data)


@pytest.mark.parametrize(("held", "added"), [(roles.CASHIERS, roles.SUPERVISORS), (roles.SUPERVISORS, roles.CASHIERS)])
def test_the_user_admin_refuses_conflicting_groups_with_a_message(client, db, held, added):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    user = make_staff("sam", held)
    response = user_form(client, user, [held, added])
    assert response.status_code == 200
    [message] = response.context["adminform"].form.errors["groups"]
    assert "Conflicting roles: Cashiers and Supervisors cannot be held by one person" in message
    assert groups_of(user) == {held}

    allowed = user_form(client, user, [held, roles.TABLE_OPERATORS])
    assert allowed.status_code == 302
    assert groups_of(user) == {held, roles.TABLE_OPERATORS}
