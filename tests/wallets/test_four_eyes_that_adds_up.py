"""Four eyes that adds up: staff movements are summed over ``MONEY_APPROVAL_WINDOW_HOURS`` (24 h) per player and
per member of staff, so a movement that would take either total past ``MONEY_APPROVAL_THRESHOLD`` waits for a
second member of staff; one admin action over many wallets counts by its total; movements kept just under the
threshold, one after another, raise a structuring alert."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from baccarat_site import roles
from tests.factories import make_staff
from wallets import services
from wallets.models import LedgerTransaction, MoneyAlert, MoneyRequest, Wallet

WALLETS = reverse("admin:wallets_wallet_changelist")


def balance(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def move(player, actor, amount: str, *, kind: str = MoneyRequest.Kind.DEPOSIT, now=None) -> services.StaffMovement:
    return services.wallet_move_once(
        kind=kind, user=player, amount=Decimal(amount), reason="Cash in at the desk", key=uuid.uuid4().hex,
        actor=actor, now=now,
    )  # fmt: skip


@pytest.fixture
def cashier(db):
    return make_staff("cashier", roles.CASHIERS)


@pytest.fixture
def supervisor(db):
    return make_staff("super", roles.SUPERVISORS)


def test_the_default_threshold_and_window():
    assert services.approval_threshold() == Decimal("1000.00")
    assert settings.MONEY_APPROVAL_WINDOW_HOURS == 24


def test_five_movements_of_1000_to_one_player_ask_for_approval_from_the_second(cashier, make_player):
    alice = make_player("alice")
    outcomes = [move(alice, cashier, "1000.00") for _ in range(5)]

    assert [o.transaction is not None for o in outcomes] == [True, False, False, False, False]
    assert all(o.request is not None and o.request.status == "pending" for o in outcomes[1:])
    assert "1,000.00 staff moved to or from alice in the last 24 hours" in outcomes[1].why
    assert balance(alice) == Decimal("1000.00")
    assert MoneyRequest.objects.filter(player=alice, status="pending").count() == 4


def test_the_player_total_counts_every_member_of_staff_and_withdrawals_too(cashier, supervisor, make_player):
    alice = make_player("alice", "2000.00")  # a command's deposit (no actor): not a staff movement
    other = make_staff("cashier2", roles.CASHIERS)
    assert move(alice, cashier, "600.00", kind=MoneyRequest.Kind.WITHDRAWAL).transaction is not None
    waits = move(alice, other, "600.00")  # 600 withdrawn + 600 deposited: 1,200 moved, not a net 0
    assert waits.request is not None
    assert balance(alice) == Decimal("1400.00")


def test_one_member_of_staff_is_summed_across_players(cashier, make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    assert move(alice, cashier, "600.00").transaction is not None
    assert move(bob, cashier, "400.00").transaction is not None  # 1,000.00 in all: at the threshold, applied
    waits = move(carol, cashier, "0.01")
    assert waits.request is not None
    assert "cashier moved in the last 24 hours" in waits.why
    assert balance(carol) == Decimal("0.00")


def test_movements_older_than_the_window_no_longer_count(cashier, make_player):
    alice = make_player("alice")
    earlier = timezone.now() - timedelta(hours=25)
    assert move(alice, cashier, "1000.00", now=earlier).transaction is not None
    assert move(alice, cashier, "1000.00").transaction is not None
    assert move(alice, cashier, "0.01").request is not None
    assert balance(alice) == Decimal("2000.00")


def test_an_approved_request_counts_for_the_player_and_for_the_staff_member_who_asked(cashier, supervisor, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    asked = move(alice, cashier, "1500.00").request
    assert asked is not None
    services.money_request_approve(request_id=asked.pk, actor=supervisor)
    assert balance(alice) == Decimal("1500.00")

    other = make_staff("cashier2", roles.CASHIERS)
    assert move(alice, other, "10.00").request is not None  # the player's 1,500.00 of the day
    assert move(bob, cashier, "10.00").request is not None  # the cashier's 1,500.00 of the day (approved)
    assert move(bob, supervisor, "10.00").transaction is not None  # approving it is not the approver's movement


def test_a_pending_or_rejected_request_moves_nothing_and_counts_nothing(cashier, supervisor, make_player):
    alice = make_player("alice")
    asked = move(alice, cashier, "1500.00").request
    services.money_request_reject(request_id=asked.pk, actor=supervisor, note="No slip")
    assert move(alice, cashier, "900.00").transaction is not None


def open_action(client, users, action: str = "deposit"):
    data = {"action": action, "_selected_action": [Wallet.objects.get(user=u).pk for u in users]}
    page = client.post(WALLETS, data)
    assert page.status_code == 200
    assert "yours past 1,000.00" in page.content.decode()
    return data, page.context["form"]["key"].value()


def test_one_action_over_many_wallets_counts_by_its_total(client, cashier, make_player):
    players = [make_player(f"p{i}") for i in range(11)]
    client.force_login(cashier)
    data, key = open_action(client, players)
    response = client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "100.00", "reason": "Promo"})
    assert response.status_code == 302

    # 11 x 100.00 = 1,100.00 for one member of staff: every movement of the action waits, none is applied.
    assert MoneyRequest.objects.filter(status="pending", requested_by=cashier).count() == 11
    assert all(balance(p) == Decimal("0.00") for p in players)
    assert not LedgerTransaction.objects.filter(actor=cashier).exists()
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "this action's 1,100.00" in messages[0]
    assert "needs the approval of another member of staff" in messages[0]


def test_an_action_within_the_threshold_applies_to_all_then_counts_for_the_next(client, cashier, make_player):
    players = [make_player(f"p{i}") for i in range(5)]
    client.force_login(cashier)
    data, key = open_action(client, players)
    client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "100.00", "reason": "Promo"})
    assert all(balance(p) == Decimal("100.00") for p in players)

    # The same form posted again changes nothing (its movements are not counted twice either).
    client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "100.00", "reason": "Promo"})
    assert all(balance(p) == Decimal("100.00") for p in players)
    assert not MoneyRequest.objects.exists()

    assert move(make_player("late"), cashier, "500.01").request is not None  # 500.00 of the action + 500.01


def test_the_batch_size_judges_the_staff_member_on_the_whole_form(cashier, make_player):
    alice = make_player("alice")
    outcome = services.wallet_move_once(
        kind=MoneyRequest.Kind.DEPOSIT, user=alice, amount=Decimal("100.00"), reason="Promo", key=uuid.uuid4().hex,
        actor=cashier, batch_size=100,
    )  # fmt: skip
    assert outcome.request is not None
    assert balance(alice) == Decimal("0.00")


# ── structuring ─────────────────────────────────────────────────────────────


def test_three_movements_just_under_the_threshold_to_one_player_raise_a_structuring_alert(cashier, make_player):
    alice = make_player("alice")
    others = [make_staff(f"cashier{i}", roles.CASHIERS) for i in (2, 3)]
    start = timezone.now() - timedelta(days=3)
    # A day apart, so each applies on its own (the 24-hour window), by three different cashiers: 2,700.00.
    assert move(alice, cashier, "900.00", now=start).transaction is not None
    assert move(alice, others[0], "850.00", now=start + timedelta(hours=25)).transaction is not None
    assert not MoneyAlert.objects.exists()
    assert move(alice, others[1], "999.99", now=start + timedelta(hours=50)).transaction is not None

    [alert] = MoneyAlert.objects.all()
    assert (alert.kind, alert.player, alert.actor, alert.count) == ("structuring", alice, others[1], 3)
    assert alert.amount == Decimal("2749.99")
    assert "3 staff movements of 800.00 to 1,000.00 for alice" in alert.detail
    assert "cashier, cashier2, cashier3" in alert.detail

    move(alice, cashier, "900.00")  # a fourth while the alert is open raises no second one
    assert MoneyAlert.objects.count() == 1


def test_asked_for_movements_near_the_threshold_count_towards_structuring(cashier, make_player):
    alice = make_player("alice")
    outcomes = [move(alice, cashier, "950.00") for _ in range(3)]
    assert [o.request is not None for o in outcomes] == [False, True, True]
    assert MoneyAlert.objects.get().count == 3


def test_smaller_movements_raise_no_structuring_alert(cashier, make_player):
    alice = make_player("alice")
    start = timezone.now() - timedelta(days=3)
    for day in range(3):
        move(alice, cashier, "799.99", now=start + timedelta(hours=25 * day))
    assert not MoneyAlert.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_one_staff_members_concurrent_forms_to_different_players_are_summed_one_after_the_other():
    from django.contrib.auth.models import Group
    from django.db import connection

    from tests.factories import make_user

    cashier = make_user("cashier", is_staff=True)
    cashier.groups.add(Group.objects.get(name=roles.CASHIERS))
    players = [make_user(f"p{i}") for i in range(6)]
    for player in players:
        services.wallet_for(user=player)
    barrier, results, errors = threading.Barrier(len(players)), [], []

    def post(player) -> None:
        try:
            barrier.wait()
            results.append(move(player, cashier, "400.00"))
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    # 400.00 x 6 at once: two apply (800.00), the third would take the cashier to 1,200.00, so four wait.
    assert sum(r.transaction is not None for r in results) == 2
    assert sum(r.request is not None for r in results) == 4


def test_a_structuring_alert_is_listed_and_acknowledged_once_then_the_next_structuring_raises_anew(
    client, cashier, make_player
):
    from django.contrib.auth.models import Permission

    alice = make_player("alice")
    for _ in range(3):
        move(alice, cashier, "950.00")
    alert = MoneyAlert.objects.get()
    boss = make_staff("boss")
    boss.user_permissions.add(*Permission.objects.filter(codename__in=["view_moneyalert", "acknowledge_moneyalert"]))
    client.force_login(boss)
    listing = reverse("admin:wallets_moneyalert_changelist")
    assert "3 staff movements of 800.00 to 1,000.00 for alice" in client.get(listing).content.decode()
    client.post(listing, {"action": "acknowledge", "_selected_action": [alert.pk]})
    alert.refresh_from_db()
    assert alert.acknowledged_by == boss
    with pytest.raises(services.AlertAcknowledged):
        services.money_alert_acknowledge(alert_id=alert.pk, actor=boss)
    with pytest.raises(services.NotAllowed):
        services.money_alert_acknowledge(alert_id=alert.pk, actor=cashier)

    move(alice, cashier, "950.00")
    assert MoneyAlert.objects.filter(acknowledged_at__isnull=True).count() == 1
