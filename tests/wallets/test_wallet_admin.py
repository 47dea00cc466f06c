"""Wallets and the ledger in the admin: balances (the House's from its entries), a read-only ledger, and the
Deposit, Withdraw and Adjust actions, which move money only through wallets.services, with a reason and an
audit entry."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from tests.factories import make_user
from tests.tables.services.rounds_kit import Clock, balance_of, drive_to_state, fast_table, place
from tests.tables.services.rounds_kit import make_player as funded_player
from wallets import selectors, services
from wallets.models import LedgerEntry, LedgerTransaction, Wallet

WALLETS = reverse("admin:wallets_wallet_changelist")
ENTRIES = reverse("admin:wallets_ledgerentry_changelist")
TRANSACTIONS = reverse("admin:wallets_ledgertransaction_changelist")


@pytest.fixture
def operator(db):
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(client, operator):
    client.force_login(operator)
    return client


def wallet_of(user) -> Wallet:
    return Wallet.objects.get(user=user)


def run_action(client, action: str, wallets, **fields: str):
    """Open the action's page for ``wallets``; with ``fields``, submit its form as the page does (with the page's
    one-time key, unless ``fields`` names one)."""
    data = {"action": action, "_selected_action": [w.pk for w in wallets]}
    page = client.post(WALLETS, data)
    if not fields:
        return page
    key = page.context["form"]["key"].value() if page.context and "form" in page.context else "no-page-key"
    return client.post(WALLETS, data | {"apply": "Go", "key": key, **fields})


def audit_entries(action: str):
    return LogEntry.objects.filter(additional_data__action=action)


def reconciles() -> bool:
    out = StringIO()
    call_command("reconcile", stdout=out, stderr=out)
    return "ledger reconciles" in out.getvalue()


def action_names(listing) -> set[str]:
    form = listing.context["action_form"]  # None when no action is available
    return set(dict(form.fields["action"].choices)) - {""} if form is not None else set()


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.mark.parametrize(
    ("action", "amount", "kind", "signed", "balance_after"),
    [
        ("deposit", "25.50", "deposit", "25.50", "125.50"),
        ("withdraw", "40.00", "withdrawal", "-40.00", "60.00"),
        ("withdraw", "100.00", "withdrawal", "-100.00", "0.00"),
        ("adjust", "12.00", "adjustment", "12.00", "112.00"),
        ("adjust", "-0.01", "adjustment", "-0.01", "99.99"),
    ],
)
def test_a_money_action_moves_exactly_the_amount_through_the_ledger_with_an_audit_entry(
    admin_client, operator, make_player, action, amount, kind, signed, balance_after
):
    alice = make_player("alice", "100.00")
    bob = make_player("bob", "7.00")

    page = run_action(admin_client, action, [wallet_of(alice)])
    assert page.status_code == 200
    assert page.templates[0].name == "admin/wallets/money_action.html"
    assert 'name="reason"' in page.content.decode()

    response = run_action(admin_client, action, [wallet_of(alice)], amount=amount, reason="Support ticket 4411")
    assert response.status_code == 302
    assert response.url == WALLETS
    [message] = messages_of(response)
    assert "alice" in message
    assert f"balance {Decimal(balance_after):,.2f}" in message

    assert wallet_of(alice).balance == Decimal(balance_after)
    assert wallet_of(bob).balance == Decimal("7.00")
    latest = selectors.ledger_entries(user=alice).first()
    assert latest.amount == Decimal(signed)
    assert latest.balance_after == Decimal(balance_after)
    txn = latest.transaction
    assert (txn.kind, txn.reason, txn.actor) == (kind, "Support ticket 4411", operator)
    assert txn.reference.startswith("once:")
    assert txn.reference.endswith(f":{alice.pk}")
    assert sorted(e.amount for e in txn.entries.all()) == sorted([Decimal(signed), -Decimal(signed)])

    [log] = audit_entries(f"wallet.{action}").filter(actor__isnull=False)
    assert log.actor == operator
    assert log.additional_data["reason"] == "Support ticket 4411"
    assert log.object_pk == str(wallet_of(alice).pk)
    assert log.changes_dict["balance"] == ["100.00", balance_after]

    assert reconciles()
    assert selectors.ledger_reconciliation().ok

    # The movement shows in the player's ledger in the admin, found by username and by reference.
    for query in ("alice", txn.reference):
        listed = admin_client.get(ENTRIES, {"q": query})
        assert latest in listed.context["cl"].result_list
        assert all(e.wallet.user_id == alice.pk for e in listed.context["cl"].result_list if e.wallet.user_id)


def test_one_action_moves_money_for_every_selected_wallet_with_a_message_each(admin_client, make_player):
    alice, bob = make_player("alice", "10.00"), make_player("bob")
    response = run_action(
        admin_client, "deposit", [wallet_of(alice), wallet_of(bob)], amount="5", reason="Weekly bonus"
    )
    assert response.status_code == 302
    assert len(messages_of(response)) == 2
    assert (wallet_of(alice).balance, wallet_of(bob).balance) == (Decimal("15.00"), Decimal("5.00"))
    assert audit_entries("wallet.deposit").filter(actor__isnull=False).count() == 2
    assert reconciles()


def test_a_withdrawal_beyond_the_balance_is_refused_with_a_form_error_and_changes_nothing(admin_client, make_player):
    alice = make_player("alice", "10.00")
    bob = make_player("bob", "100.00")
    entries, logs = LedgerEntry.objects.count(), LogEntry.objects.count()

    response = run_action(admin_client, "withdraw", [wallet_of(alice)], amount="10.01", reason="Cash out request")
    assert response.status_code == 200
    errors = response.context["form"].errors["amount"]
    assert errors == ["alice: The wallet holds 10.00, not enough for 10.01."]
    assert "errornote" in response.content.decode()
    assert "not enough for 10.01" in response.content.decode()

    # With several wallets, one refusal leaves every wallet as it was.
    response = run_action(
        admin_client, "withdraw", [wallet_of(alice), wallet_of(bob)], amount="50.00", reason="Cash out request"
    )
    assert response.status_code == 200
    assert "Nothing was done for any of the selected wallets" in response.context["form"].errors["amount"][0]

    # A negative adjustment below zero is refused the same way.
    response = run_action(admin_client, "adjust", [wallet_of(alice)], amount="-10.01", reason="Reverse a bonus")
    assert response.status_code == 200
    assert "not enough" in response.context["form"].errors["amount"][0]

    assert (wallet_of(alice).balance, wallet_of(bob).balance) == (Decimal("10.00"), Decimal("100.00"))
    assert (LedgerEntry.objects.count(), LogEntry.objects.count()) == (entries, logs)
    assert reconciles()


@pytest.mark.parametrize(
    ("action", "amount", "reason", "field", "error"),
    [
        ("deposit", "10.00", "", "reason", "This field is required."),
        ("deposit", "10.00", "    ", "reason", "This field is required."),
        ("withdraw", "1.00", "abc", "reason", "at least 5 characters"),
        ("adjust", "1.00", "x" * 201, "reason", "at most 200 characters"),
        ("deposit", "", "Promotional credit", "amount", "This field is required."),
        ("deposit", "0", "Promotional credit", "amount", "greater than zero"),
        ("deposit", "-5.00", "Promotional credit", "amount", "no sign"),
        ("withdraw", "1.005", "Promotional credit", "amount", "at most two decimals"),
        ("deposit", "ten", "Promotional credit", "amount", "plain digits"),
        ("adjust", "0.00", "Promotional credit", "amount", "cannot be zero"),
        ("deposit", "1000000000000.00", "Promotional credit", "amount", "plain digits"),
        # Django's DecimalField reads these as numbers; a cashier means none of them.
        ("deposit", "5e8", "Promotional credit", "amount", "no exponent"),
        ("deposit", "5E2", "Promotional credit", "amount", "no exponent"),
        ("adjust", "-1e2", "Promotional credit", "amount", "no exponent"),
        ("deposit", "1,000", "Promotional credit", "amount", "no thousands separator"),
        ("deposit", "1 000", "Promotional credit", "amount", "no spaces"),
        ("deposit", "+5", "Promotional credit", "amount", "no sign"),
        ("deposit", "NaN", "Promotional credit", "amount", "plain digits"),
        ("deposit", "Infinity", "Promotional credit", "amount", "plain digits"),
        ("deposit", "٥", "Promotional credit", "amount", "plain digits"),
    ],
)
def test_an_invalid_amount_or_a_missing_reason_is_refused_with_a_form_error_and_changes_nothing(
    admin_client, make_player, action, amount, reason, field, error
):
    alice = make_player("alice", "50.00")
    entries, logs = LedgerEntry.objects.count(), LogEntry.objects.count()

    response = run_action(admin_client, action, [wallet_of(alice)], amount=amount, reason=reason)

    assert response.status_code == 200
    assert any(error in message for message in response.context["form"].errors[field])
    assert "errornote" in response.content.decode()
    assert wallet_of(alice).balance == Decimal("50.00")
    assert (LedgerEntry.objects.count(), LogEntry.objects.count()) == (entries, logs)


def test_the_house_wallet_cannot_be_the_target_of_a_money_action(admin_client, make_player):
    make_player("alice", "50.00")
    house = services.house_wallet()
    response = run_action(admin_client, "deposit", [house], amount="5.00", reason="Top up the house")
    assert response.status_code == 302
    assert "Select player wallets" in messages_of(response)[0]
    assert selectors.house_balance() == Decimal("-50.00")


def test_the_services_require_a_reason_and_audit_commands_without_an_actor(make_player):
    alice = make_player("alice", "5.00")
    with pytest.raises(services.MissingReason):
        services.wallet_withdraw(user=alice, amount="1.00", reason="  ")
    assert wallet_of(alice).balance == Decimal("5.00")

    out = StringIO()
    call_command("wallet_deposit", "alice", "2.50", "--reason", "load test", stdout=out)
    assert "alice now has 7.50" in out.getvalue()
    log = audit_entries("wallet.deposit").latest("pk")
    assert log.actor is None
    assert log.additional_data["reason"] == "load test"
    assert log.changes_dict["balance"] == ["5.00", "7.50"]


def test_staff_need_the_move_money_permission_to_move_money(client, make_player):
    alice = make_player("alice", "20.00")
    clerk = make_user("clerk", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_wallet"))
    client.force_login(clerk)

    listing = client.get(WALLETS)
    assert listing.status_code == 200
    assert not action_names(listing) & {"deposit", "withdraw", "adjust"}
    client.post(WALLETS, {"action": "deposit", "_selected_action": [wallet_of(alice).pk], "apply": "Go",
                          "amount": "5.00", "reason": "Not allowed to"})  # fmt: skip
    assert wallet_of(alice).balance == Decimal("20.00")

    clerk.user_permissions.add(Permission.objects.get(codename="change_wallet"))  # not the right one
    client.post(WALLETS, {"action": "deposit", "_selected_action": [wallet_of(alice).pk], "apply": "Go",
                          "amount": "5.00", "reason": "Not allowed to", "key": "k" * 32})  # fmt: skip
    assert wallet_of(alice).balance == Decimal("20.00")

    clerk.user_permissions.add(Permission.objects.get(codename="move_money"))
    response = run_action(client, "deposit", [wallet_of(alice)], amount="5.00", reason="Allowed now")
    assert response.status_code == 302
    assert wallet_of(alice).balance == Decimal("25.00")
    assert audit_entries("wallet.deposit").latest("pk").actor == clerk
    # The row itself is still never edited in the admin.
    assert client.post(reverse("admin:wallets_wallet_change", args=[wallet_of(alice).pk]), {}).status_code == 403


@pytest.mark.parametrize("model", ["ledgertransaction", "ledgerentry", "wallet"])
def test_the_ledger_and_wallet_rows_have_no_add_change_or_delete_in_the_admin(admin_client, make_player, model):
    alice = make_player("alice", "30.00")
    obj = {
        "ledgertransaction": LedgerTransaction.objects.filter(entries__wallet__user=alice).first(),
        "ledgerentry": LedgerEntry.objects.filter(wallet__user=alice).first(),
        "wallet": wallet_of(alice),
    }[model]

    listing = admin_client.get(reverse(f"admin:wallets_{model}_changelist"))
    assert listing.status_code == 200
    assert not listing.context["has_add_permission"]
    assert "delete_selected" not in action_names(listing)
    assert action_names(listing) == ({"deposit", "withdraw", "adjust"} if model == "wallet" else set())
    assert admin_client.get(reverse(f"admin:wallets_{model}_add")).status_code == 403

    change_url = reverse(f"admin:wallets_{model}_change", args=[obj.pk])
    view = admin_client.get(change_url)
    assert view.status_code == 200  # viewing only
    assert not view.context["has_change_permission"]
    assert 'name="_save"' not in view.content.decode()
    assert (
        admin_client.post(change_url, {"reason": "rewritten", "amount": "1.00", "balance": "999.00"}).status_code == 403
    )

    assert admin_client.get(reverse(f"admin:wallets_{model}_delete", args=[obj.pk])).status_code == 403
    assert (
        admin_client.post(reverse(f"admin:wallets_{model}_delete", args=[obj.pk]), {"post": "yes"}).status_code == 403
    )
    assert wallet_of(alice).balance == Decimal("30.00")
    assert reconciles()


def test_the_ledger_lists_filter_by_kind_and_date_and_search_by_username_and_reference(admin_client, make_player):
    make_player("alice", "30.00")
    bob = make_player("bob", "10.00")
    services.wallet_withdraw(user=bob, amount="4.00", reason="Cash out", reference="cashier:77")

    withdrawals = admin_client.get(ENTRIES, {"transaction__kind__exact": "withdrawal"}).context["cl"].result_list
    assert sorted(e.amount for e in withdrawals) == [Decimal("-4.00"), Decimal("4.00")]
    today = admin_client.get(TRANSACTIONS, {"kind__exact": "deposit", "created_at__gte": "2000-01-01 00:00:00+00:00"})
    assert today.status_code == 200
    assert {t.kind for t in today.context["cl"].result_list} == {"deposit"}
    assert len(today.context["cl"].result_list) == 2

    assert {t.reference for t in admin_client.get(TRANSACTIONS, {"q": "cashier:77"}).context["cl"].result_list} == {
        "cashier:77"
    }
    by_user = admin_client.get(TRANSACTIONS, {"q": "alice"})
    assert [t.first_player for t in by_user.context["cl"].result_list] == ["alice"]
    assert "alice" in by_user.content.decode()

    # The wallet list links to each wallet's entries.
    own = admin_client.get(ENTRIES, {"wallet__id__exact": wallet_of(bob).pk})
    assert own.status_code == 200
    assert {e.wallet_id for e in own.context["cl"].result_list} == {wallet_of(bob).pk}
    assert f"?wallet__id__exact={wallet_of(bob).pk}" in admin_client.get(WALLETS).content.decode()
    assert [w.user for w in admin_client.get(WALLETS, {"q": "bob"}).context["cl"].result_list] == [bob]


def test_the_house_wallet_shows_its_balance_derived_from_its_ledger_entries_after_bets_settle(admin_client):
    alice, bob = funded_player("alice", "500.00"), funded_player("bob", "300.00")
    table = fast_table()
    clock = Clock()
    round_ = drive_to_state(table, clock, "betting")
    place(alice, round_.pk, ("player", "100.00"), ("tie", "10.00"))
    place(bob, round_.pk, ("banker", "50.00"))
    drive_to_state(table, clock, "settled")

    house = services.house_wallet()
    derived = selectors.house_balance()
    assert house.balance == Decimal("0.00")  # the row is not kept hot
    assert derived == -(balance_of(alice) + balance_of(bob))
    assert LedgerTransaction.objects.filter(kind="stake").exists()
    assert reconciles()

    listing = admin_client.get(WALLETS)
    html = listing.content.decode()
    assert "Balance (from ledger)" in html
    rows = {w.pk: w for w in listing.context["cl"].result_list}
    assert rows[house.pk].ledger_balance == derived
    assert rows[wallet_of(alice).pk].ledger_balance == balance_of(alice)
    assert f'<td class="field-balance_from_ledger">{derived:,.2f}</td>' in html

    detail = admin_client.get(reverse("admin:wallets_wallet_change", args=[house.pk])).content.decode()
    assert f"{derived:,.2f}" in detail
    assert "Balance (from ledger)" in detail


def test_the_house_balance_from_ledger_follows_stakes_and_payouts_posted_through_the_wallet_services(
    admin_client, make_player
):
    alice, bob = make_player("alice", "200.00"), make_player("bob", "100.00")
    for user, stake in ((alice, "80.00"), (bob, "30.00"), (alice, "20.00")):
        with transaction.atomic():
            services.wallet_post(
                wallet=services.wallet_lock(user=user), amount=-Decimal(stake), kind="stake", reference="test:stake"
            )
    services.wallets_credit_many(credits={alice.pk: Decimal("160.00")}, kind="payout", reference="test:payout")

    house = services.house_wallet()
    # The House paid 300.00 of deposits, took 130.00 of stakes and paid 160.00 back.
    assert selectors.house_balance() == Decimal("-330.00")
    assert house.balance == Decimal("0.00")
    assert reconciles()

    listing = admin_client.get(WALLETS)
    rows = {w.pk: w for w in listing.context["cl"].result_list}
    assert rows[house.pk].ledger_balance == Decimal("-330.00")
    assert rows[wallet_of(alice).pk].ledger_balance == Decimal("260.00") == wallet_of(alice).balance
    assert rows[wallet_of(bob).pk].ledger_balance == Decimal("70.00") == wallet_of(bob).balance
    html = listing.content.decode()
    assert '<td class="field-balance_from_ledger">-330.00</td>' in html
    assert '<td class="field-stored_balance">not kept: see Balance (from ledger)</td>' in html


def test_a_rounds_one_transaction_lists_its_players_count_and_total_and_shows_every_leg(admin_client, make_player):
    alice, bob = make_player("alice", "10.00"), make_player("bob", "10.00")
    services.wallets_credit_many(
        credits={alice.pk: Decimal("19.50"), bob.pk: Decimal("1000.00")},
        kind="payout",
        reference="round:7",
    )
    payout = LedgerTransaction.objects.get(reference="round:7")

    html = admin_client.get(TRANSACTIONS, {"kind__exact": "payout"}).content.decode()
    assert '<td class="field-player">2 players</td>' in html
    assert '<td class="field-player_amount">+1,019.50 in all</td>' in html
    deposits = admin_client.get(TRANSACTIONS, {"q": "bob", "kind__exact": "deposit"}).content.decode()
    assert '<td class="field-player">bob</td>' in deposits
    assert '<td class="field-player_amount">+10.00</td>' in deposits

    detail = admin_client.get(reverse("admin:wallets_ledgertransaction_change", args=[payout.pk])).content.decode()
    for amount in ("19.50", "1000.00", "-1019.50"):
        assert amount in detail
