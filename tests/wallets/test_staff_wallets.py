"""Staff do not play: no path funds, refills, credits or stakes a staff account's wallet (``staff_wallet``), and a
player made staff (``is_staff``, a superuser, or a staff group; in the admin or in code) has their wallet frozen,
its balance kept, recorded in the audit trail."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.urls import reverse

from baccarat_site import roles
from baccarat_site.accounts.services import player_refill
from tables.selectors.tables import table_minimum_stake
from tests.factories import make_staff, make_user
from wallets import services
from wallets.models import LedgerTransaction, MoneyRequest, Wallet

WALLETS = reverse("admin:wallets_wallet_changelist")


def balance(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def wallet_entries(user, action: str) -> list[LogEntry]:
    wallet = Wallet.objects.get(user=user)
    return [
        entry
        for entry in LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Wallet), object_pk=str(wallet.pk)
        ).order_by("id")
        if (entry.additional_data or {}).get("action") == action
    ]


@pytest.fixture
def cashier(db):
    return make_staff("cashier", roles.CASHIERS)


@pytest.fixture
def dealer(make_player):
    """A player with 500.00 who then joined the staff as a dealer (the finding: a dealer with a wallet)."""
    user = make_player("dealer", "500.00")
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get(name=roles.DEALERS))
    return user


def test_is_staff_member_counts_is_staff_superusers_and_staff_groups_only(db):
    player = make_user("player")
    by_flag = make_user("flag", is_staff=True)
    by_group = make_user("group")
    by_group.groups.add(Group.objects.get(name=roles.DEALERS))
    root = make_user("root", is_superuser=True)
    other_group = make_user("club")
    other_group.groups.add(Group.objects.create(name="Newsletter readers"))
    assert [roles.is_staff_member(u) for u in (player, by_flag, by_group, root, other_group)] == [
        False,
        True,
        True,
        True,
        False,
    ]
    assert roles.is_staff_member(by_group.pk) is True
    assert roles.is_staff_member(None) is False


@pytest.mark.parametrize(
    "move",
    [
        lambda user, actor: services.wallet_deposit(user=user, amount="10.00", reason="x", actor=actor),
        lambda user, actor: services.wallet_deposit(user=user, amount="10.00", reason="a command"),
        lambda user, actor: services.wallet_withdraw(user=user, amount="10.00", reason="x", actor=actor),
        lambda user, actor: services.wallet_adjust(user=user, amount=Decimal("10.00"), reason="x", actor=actor),
        lambda user, actor: services.wallet_adjust(user=user, amount=Decimal("-10.00"), reason="x", actor=actor),
    ],
    ids=["deposit", "command-deposit", "withdraw", "adjust-up", "adjust-down"],
)
def test_no_operator_movement_reaches_a_staff_wallet(dealer, cashier, move):
    with pytest.raises(services.StaffWallet) as refused:
        move(dealer, cashier)
    assert refused.value.code == "staff_wallet"
    assert refused.value.status == 403
    assert "dealer is a staff account" in refused.value.detail
    assert balance(dealer) == Decimal("500.00")


@pytest.mark.parametrize("amount", ["10.00", "5000.00"], ids=["applied", "over-the-threshold"])
def test_a_staff_form_neither_moves_nor_asks_for_a_staff_wallet(dealer, cashier, amount):
    with pytest.raises(services.StaffWallet):
        services.wallet_move_once(
            kind=MoneyRequest.Kind.DEPOSIT, user=dealer, amount=Decimal(amount), reason="x", key=uuid.uuid4().hex,
            actor=cashier,
        )  # fmt: skip
    assert not MoneyRequest.objects.exists()
    assert balance(dealer) == Decimal("500.00")


def test_the_wallet_admin_refuses_a_staff_wallet_with_a_message(client, dealer, cashier):
    client.force_login(cashier)
    data = {"action": "deposit", "_selected_action": [Wallet.objects.get(user=dealer).pk]}
    key = client.post(WALLETS, data).context["form"]["key"].value()
    response = client.post(
        WALLETS, data | {"apply": "Go", "key": key, "amount": "10.00", "reason": "Tips for the dealer"}
    )
    assert response.status_code == 200
    assert "staff account" in response.context["form"].errors["amount"][0]
    assert balance(dealer) == Decimal("500.00")


def test_an_approved_request_is_not_applied_once_the_player_is_staff(make_player, cashier):
    alice = make_player("alice", "100.00")
    supervisor = make_staff("super", roles.SUPERVISORS)
    asked = services.wallet_move_once(
        kind=MoneyRequest.Kind.DEPOSIT, user=alice, amount=Decimal("2000.00"), reason="x", key=uuid.uuid4().hex,
        actor=cashier,
    ).request  # fmt: skip
    assert asked is not None
    alice.groups.add(Group.objects.get(name=roles.TABLE_OPERATORS))
    with pytest.raises(services.StaffWallet):
        services.money_request_approve(request_id=asked.pk, actor=supervisor)
    assert MoneyRequest.objects.get().status == "pending"
    assert balance(alice) == Decimal("100.00")


def test_a_staff_account_gets_no_starting_money(db):
    staff = make_staff("newhire", roles.CASHIERS)
    with pytest.raises(services.StaffWallet):
        services.wallet_open_player(user=staff)
    assert not LedgerTransaction.objects.filter(entries__wallet__user=staff).exists()


def test_a_staff_account_gets_no_refill(dealer):
    with pytest.raises(services.StaffWallet):
        services.wallet_refill(user=dealer, minimum_stake=Decimal("1000.00"))
    with pytest.raises(services.StaffWallet):
        player_refill(user=dealer, minimum_stake=table_minimum_stake())
    assert balance(dealer) == Decimal("500.00")


def test_the_refill_api_answers_staff_wallet(client, dealer):
    client.force_login(dealer)
    response = client.post("/api/wallet/refill/")
    assert response.status_code == 403
    assert response.json()["code"] == "staff_wallet"
    assert balance(dealer) == Decimal("500.00")


def test_a_stake_from_a_staff_wallet_is_refused_under_the_lock(dealer):
    with transaction.atomic():
        wallet = services.wallet_lock(user=dealer)
        assert wallet.staff is True
        with pytest.raises(services.StaffWallet):
            services.wallet_post(wallet=wallet, amount=Decimal("-100.00"), kind="stake", reference="round:1")
    assert balance(dealer) == Decimal("500.00")


def test_membership_of_a_staff_group_alone_freezes_the_wallet(make_player, cashier):
    bob = make_player("bob", "50.00")
    Group.objects.get(name=roles.AUDITORS).user_set.add(bob)  # the group's side, is_staff left unset
    with pytest.raises(services.StaffWallet):
        services.wallet_deposit(user=bob, amount="10.00", reason="x", actor=cashier)
    [entry] = wallet_entries(bob, "wallet.freeze")
    assert entry.changes_dict["balance"] == ["50.00", "50.00"]


def test_making_a_player_staff_in_code_freezes_the_wallet_keeping_its_balance_audited(make_player, cashier):
    carol = make_player("carol", "250.00")
    carol.is_staff = True
    carol.save()

    [entry] = wallet_entries(carol, "wallet.freeze")
    assert entry.changes_dict["frozen"] == [False, True]
    assert entry.changes_dict["balance"] == ["250.00", "250.00"]
    assert "became staff" in entry.additional_data["reason"]
    assert balance(carol) == Decimal("250.00")
    with pytest.raises(services.StaffWallet):
        services.wallet_deposit(user=carol, amount="10.00", reason="x", actor=cashier)
    with pytest.raises(services.StaffWallet):
        services.wallet_withdraw(user=carol, amount="10.00", reason="x", actor=cashier)

    carol.groups.add(Group.objects.get(name=roles.DEALERS))  # already staff: nothing new to record
    assert len(wallet_entries(carol, "wallet.freeze")) == 1

    carol.groups.clear()
    carol.is_staff = False
    carol.save()
    [thawed] = wallet_entries(carol, "wallet.unfreeze")
    assert thawed.changes_dict["frozen"] == [True, False]
    services.wallet_deposit(user=carol, amount="10.00", reason="Back at the tables", actor=cashier)
    assert balance(carol) == Decimal("260.00")


def test_making_a_player_staff_in_the_admin_freezes_the_wallet_audited_with_who(client, make_player):
    dave = make_player("dave", "75.00")
    root = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(root)
    url = reverse("admin:auth_user_change", args=[dave.pk])
    form = client.get(url).context["adminform"].form
    data = {
        "username": "dave",
        "is_active": "on",
        "is_staff": "on",
        "date_joined_0": form.initial["date_joined"].strftime("%Y-%m-%d"),
        "date_joined_1": form.initial["date_joined"].strftime("%H:%M:%S"),
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors

    [entry] = wallet_entries(dave, "wallet.freeze")
    assert entry.actor == root
    assert balance(dave) == Decimal("75.00")
