"""Staff money that moves once: a form's one-time key applies it once however often it is posted, a movement
over the approval threshold waits for a second, different member of staff, and nobody moves money into or out
of their own wallet."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from baccarat_site import roles
from tests.factories import make_user
from wallets import services
from wallets.models import LedgerEntry, LedgerTransaction, MoneyRequest, Wallet

WALLETS = reverse("admin:wallets_wallet_changelist")
REQUESTS = reverse("admin:wallets_moneyrequest_changelist")


def staff(username: str, role: str):
    user = make_user(username, is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def balance(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def open_page(client, action: str, users):
    data = {"action": action, "_selected_action": [Wallet.objects.get(user=u).pk for u in users]}
    page = client.post(WALLETS, data)
    assert page.status_code == 200
    return data, page.context["form"]["key"].value()


@pytest.fixture
def cashier(db):
    return staff("cashier", roles.CASHIERS)


@pytest.fixture
def supervisor(db):
    return staff("super", roles.SUPERVISORS)


# ── one-time keys ───────────────────────────────────────────────────────────


def test_a_double_posted_deposit_credits_once_and_the_second_post_says_it_was_done(client, cashier, make_player):
    alice = make_player("alice", "100.00")
    client.force_login(cashier)
    data, key = open_page(client, "deposit", [alice])
    form = data | {"apply": "Go", "key": key, "amount": "250.00", "reason": "Cash desk 3"}

    first = client.post(WALLETS, form)
    second = client.post(WALLETS, form)  # the double click, or the proxy's retry

    assert balance(alice) == Decimal("350.00")
    assert LedgerTransaction.objects.filter(kind="deposit", actor=cashier).count() == 1
    assert LogEntry.objects.filter(additional_data__action="wallet.deposit", actor=cashier).count() == 1
    assert "Deposited 250.00" in messages_of(first)[0]
    assert messages_of(second)[-1].startswith("Already done, this form was sent before: Deposited 250.00")


def test_back_and_resubmit_after_a_form_error_keeps_the_key_and_still_credits_once(client, cashier, make_player):
    alice = make_player("alice", "10.00")
    client.force_login(cashier)
    data, key = open_page(client, "deposit", [alice])
    refused = client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "5e8", "reason": "Cash desk 3"})
    assert refused.status_code == 200
    assert refused.context["form"]["key"].value() == key  # the corrected page posts the same key
    assert balance(alice) == Decimal("10.00")

    good = data | {"apply": "Go", "key": key, "amount": "500", "reason": "Cash desk 3"}
    client.post(WALLETS, good)
    client.post(WALLETS, good)
    assert balance(alice) == Decimal("510.00")


def test_a_fresh_page_has_a_fresh_key_so_a_second_deposit_on_purpose_is_made(client, cashier, make_player):
    alice = make_player("alice")
    client.force_login(cashier)
    for _ in range(2):
        data, key = open_page(client, "deposit", [alice])
        client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "20.00", "reason": "Cash desk 3"})
    assert balance(alice) == Decimal("40.00")


def test_a_post_without_a_valid_key_is_refused_and_moves_nothing(client, cashier, make_player):
    alice = make_player("alice", "10.00")
    client.force_login(cashier)
    data, _ = open_page(client, "deposit", [alice])
    for key in ("", "short", "x" * 41, "a b c d e f g h", "<script>alert(1)</script>"):
        response = client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "5.00", "reason": "Cash desk"})
        assert response.status_code == 200, key
        assert response.context["form"].errors, key
    assert balance(alice) == Decimal("10.00")


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_posts_of_one_key_credit_once():
    alice, cashier = make_user("alice"), make_user("cashier", is_staff=True)
    services.wallet_for(user=alice)
    key, results, errors = uuid.uuid4().hex, [], []
    barrier = threading.Barrier(20)

    def post() -> None:
        try:
            barrier.wait()
            results.append(
                services.wallet_move_once(
                    kind="deposit", user=alice, amount=Decimal("75.00"), reason="Cash desk 3", key=key, actor=cashier
                )
            )
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert balance(alice) == Decimal("75.00")
    assert sum(not r.repeated for r in results) == 1
    assert len({r.transaction.pk for r in results}) == 1


def test_the_database_refuses_a_second_ledger_transaction_with_the_same_one_time_reference(make_player):
    alice = make_player("alice", "10.00")
    with transaction.atomic():
        wallet = services.wallet_lock(user=alice)
        services.wallet_post(wallet=wallet, amount=Decimal("1.00"), kind="deposit", reference="once:k1:1")
    with transaction.atomic():
        wallet = services.wallet_lock(user=alice)
        with pytest.raises(IntegrityError), transaction.atomic():
            services.wallet_post(wallet=wallet, amount=Decimal("1.00"), kind="deposit", reference="once:k1:1")
    assert balance(alice) == Decimal("11.00")


# ── nobody moves their own money ────────────────────────────────────────────


@pytest.mark.parametrize("action", ["deposit", "withdraw", "adjust"])
def test_a_cashier_cannot_move_money_into_or_out_of_their_own_wallet(client, db, action):
    # Funded while a player (a staff wallet is frozen and cannot be funded), then made a cashier.
    cashier = make_user("cashier")
    services.wallet_deposit(user=cashier, amount="50.00", reason="Played before joining the staff")
    cashier.is_staff = True
    cashier.save()
    cashier.groups.add(Group.objects.get(name=roles.CASHIERS))
    client.force_login(cashier)
    data, key = open_page(client, action, [cashier])
    response = client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": "10.00", "reason": "For myself"})
    assert response.status_code == 200
    assert "own wallet" in response.context["form"].errors["amount"][0]
    assert balance(cashier) == Decimal("50.00")
    with pytest.raises(services.OwnWallet):
        services.wallet_deposit(user=cashier, amount="10.00", reason="For myself", actor=cashier)
    assert balance(cashier) == Decimal("50.00")


# ── four eyes ───────────────────────────────────────────────────────────────


def request_over_threshold(client, cashier, player, action: str = "withdraw", amount: str = "1500.00"):
    client.force_login(cashier)
    data, key = open_page(client, action, [player])
    response = client.post(WALLETS, data | {"apply": "Go", "key": key, "amount": amount, "reason": "Big cash out"})
    assert response.status_code == 302
    return response


def test_a_withdrawal_over_the_threshold_becomes_a_pending_request_and_moves_nothing(client, cashier, make_player):
    alice = make_player("alice", "5000.00")
    entries = LedgerEntry.objects.count()
    response = request_over_threshold(client, cashier, alice)

    [asked] = MoneyRequest.objects.all()
    assert (asked.player, asked.kind, asked.amount, asked.status) == (
        alice,
        "withdrawal",
        Decimal("-1500.00"),
        "pending",
    )
    assert asked.requested_by == cashier
    assert "needs the approval of another member of staff" in messages_of(response)[0]
    assert balance(alice) == Decimal("5000.00")
    assert LedgerEntry.objects.count() == entries
    assert LogEntry.objects.filter(additional_data__action="wallet.request", actor=cashier).count() == 1


def test_at_the_threshold_a_movement_is_applied_and_one_cent_over_it_asks(client, cashier, make_player, settings):
    settings.MONEY_APPROVAL_THRESHOLD = "1000.00"
    alice = make_player("alice", "5000.00")
    request_over_threshold(client, cashier, alice, amount="1000.00")
    assert balance(alice) == Decimal("4000.00")
    request_over_threshold(client, cashier, alice, amount="1000.01")
    assert balance(alice) == Decimal("4000.00")
    assert MoneyRequest.objects.get().amount == Decimal("-1000.01")
    request_over_threshold(client, cashier, alice, action="adjust", amount="-1000.01")
    assert MoneyRequest.objects.count() == 2


def decide(client, who, asked, action: str, note: str = ""):
    client.force_login(who)
    data = {"action": action, "_selected_action": [asked.pk]}
    page = client.post(REQUESTS, data)
    return page, client.post(REQUESTS, data | {"apply": "Go", "note": note})


def test_a_supervisor_approves_a_cashiers_withdrawal_and_it_is_applied_once(client, cashier, supervisor, make_player):
    alice = make_player("alice", "5000.00")
    request_over_threshold(client, cashier, alice)
    asked = MoneyRequest.objects.get()

    page, done = decide(client, supervisor, asked, "approve", "Checked the ticket")
    assert page.status_code == 200
    assert "Big cash out" in page.content.decode()
    assert done.status_code == 302
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by, asked.decision_note) == ("approved", supervisor, "Checked the ticket")
    assert balance(alice) == Decimal("3500.00")
    txn = asked.transaction
    assert (txn.kind, txn.actor, txn.reference, txn.reason) == (
        "withdrawal", supervisor, f"request:{asked.pk}", "Big cash out"
    )  # fmt: skip
    approval = LogEntry.objects.get(additional_data__action="wallet.request.approve")
    assert approval.actor == supervisor
    assert approval.changes_dict["status"] == ["pending", "approved"]

    _, again = decide(client, supervisor, asked, "approve")
    assert "already approved and applied" in messages_of(again)[-1]
    assert balance(alice) == Decimal("3500.00")


def test_the_maker_of_a_request_cannot_approve_it_even_as_a_supervisor(client, supervisor, make_player):
    other = staff("other-super", roles.SUPERVISORS)
    alice = make_player("alice", "5000.00")
    request_over_threshold(client, supervisor, alice)
    asked = MoneyRequest.objects.get()

    _, refused = decide(client, supervisor, asked, "approve")
    assert "different member of staff" in messages_of(refused)[-1]
    assert MoneyRequest.objects.get().status == "pending"
    assert balance(alice) == Decimal("5000.00")

    decide(client, other, asked, "approve")
    assert MoneyRequest.objects.get().status == "approved"
    assert balance(alice) == Decimal("3500.00")


def test_a_cashier_without_the_approval_right_sees_no_approve_button_and_cannot_approve(
    client, cashier, supervisor, make_player
):
    other_cashier = staff("cashier2", roles.CASHIERS)
    alice = make_player("alice", "5000.00")
    request_over_threshold(client, cashier, alice)
    asked = MoneyRequest.objects.get()

    client.force_login(other_cashier)
    listing = client.get(REQUESTS)
    assert listing.status_code == 200
    choices = (
        set(dict(listing.context["action_form"].fields["action"].choices)) if listing.context["action_form"] else set()
    )
    assert not choices & {"approve", "reject"}
    client.post(REQUESTS, {"action": "approve", "_selected_action": [asked.pk], "apply": "Go"})
    assert MoneyRequest.objects.get().status == "pending"
    with pytest.raises(services.NotAllowed):
        services.money_request_approve(request_id=asked.pk, actor=other_cashier)
    assert balance(alice) == Decimal("5000.00")


def test_a_rejection_needs_a_reason_and_moves_no_money(client, cashier, supervisor, make_player):
    alice = make_player("alice", "5000.00")
    request_over_threshold(client, cashier, alice)
    asked = MoneyRequest.objects.get()

    _, missing = decide(client, supervisor, asked, "reject", "")
    assert missing.status_code == 200
    assert "Say why" in missing.content.decode()
    assert MoneyRequest.objects.get().status == "pending"

    decide(client, supervisor, asked, "reject", "No ticket for this")
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by, asked.transaction) == ("rejected", supervisor, None)
    assert balance(alice) == Decimal("5000.00")
    with pytest.raises(services.RequestDecided):
        services.money_request_approve(request_id=asked.pk, actor=staff("s2", roles.SUPERVISORS))


def test_an_approval_the_balance_no_longer_covers_is_refused_and_the_request_stays_pending(
    client, cashier, supervisor, make_player
):
    alice = make_player("alice", "1600.00")
    request_over_threshold(client, cashier, alice)
    services.wallet_withdraw(user=alice, amount="200.00", reason="Spent meanwhile")
    with pytest.raises(services.InsufficientFunds):
        services.money_request_approve(request_id=MoneyRequest.objects.get().pk, actor=supervisor)
    assert MoneyRequest.objects.get().status == "pending"
    assert balance(alice) == Decimal("1400.00")


def test_nobody_approves_a_request_for_their_own_wallet(client, cashier, make_player):
    # Asked for while they were a player (a staff wallet cannot even be asked for), then made a supervisor.
    supervisor = make_player("super", "3000.00")
    request_over_threshold(client, cashier, supervisor)
    supervisor.is_staff = True
    supervisor.save()
    supervisor.groups.add(Group.objects.get(name=roles.SUPERVISORS))
    with pytest.raises(services.OwnWallet):
        services.money_request_approve(request_id=MoneyRequest.objects.get().pk, actor=supervisor)
    assert balance(supervisor) == Decimal("3000.00")


def test_the_database_refuses_a_request_decided_by_its_maker_or_for_the_makers_own_wallet(make_player):
    alice, cashier = make_player("alice"), make_user("c", is_staff=True)
    base = {"kind": "deposit", "amount": Decimal("2000.00"), "reason": "x", "requested_at": timezone.now()}
    with pytest.raises(IntegrityError), transaction.atomic():
        MoneyRequest.objects.create(
            player=alice, key="k1", requested_by=cashier, decided_by=cashier, status="rejected", **base
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        MoneyRequest.objects.create(player=cashier, key="k2", requested_by=cashier, **base)


def test_the_movement_services_stamp_the_now_they_are_given(cashier, supervisor, make_player):
    alice = make_player("alice", "2000.00")
    now = timezone.now() + timedelta(minutes=3)

    small = services.wallet_move_once(
        kind="deposit",
        user=alice,
        amount=Decimal("75.00"),
        reason="Cash desk 3",
        key=uuid.uuid4().hex,
        actor=cashier,
        now=now,
    )
    assert small.transaction is not None
    assert small.transaction.created_at == now
    assert set(small.transaction.entries.values_list("created_at", flat=True)) == {now}

    asked = services.wallet_move_once(
        kind="withdrawal",
        user=alice,
        amount=Decimal("1500.00"),
        reason="Cash out",
        key=uuid.uuid4().hex,
        actor=cashier,
        now=now,
    ).request
    assert asked is not None
    assert asked.requested_at == now
    later = now + timedelta(minutes=1)
    approved = services.money_request_approve(request_id=asked.pk, actor=supervisor, now=later)
    assert approved.decided_at == later
    assert approved.transaction.created_at == later

    refused = services.wallet_move_once(
        kind="deposit",
        user=alice,
        amount=Decimal("1500.00"),
        reason="Bonus",
        key=uuid.uuid4().hex,
        actor=cashier,
        now=now,
    ).request
    assert refused is not None
    rejected = services.money_request_reject(request_id=refused.pk, actor=supervisor, note="No bonus", now=later)
    assert rejected.decided_at == later
