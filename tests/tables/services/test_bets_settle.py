"""round_settle pays every bet of a dealt round exactly once; round_cancel refunds every stake exactly once."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.utils import timezone

from tables import events
from tables.models import Bet, BetOutcome, Round
from tables.selectors.bets import casino_reconciliation
from tables.services import settlement
from tests.factories import make_round, make_table
from wallets.models import LedgerTransaction, Wallet

# P 3 2 | 8 → 3, B 6 K → 6 stands: Banker wins with a two-card 6.
BANKER_SIX = "3H 6D 2C KS 8C"
# P 9 K → 9, B 2 3 → 5: a Player natural, won by 4.
PLAYER_NATURAL = "9H 2D KC 3S"
# P 9 K, B 9 K: a natural tie.
NATURAL_TIE = "9H 9D KC KS"


def balance_of(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


@pytest.fixture
def sent(monkeypatch):
    """The personal events settlement sends after commit, as (group, event)."""
    messages: list[tuple[str, dict]] = []
    monkeypatch.setattr(events, "user_events_send", lambda batch: messages.extend(batch))
    return messages


def test_settlement_pays_each_bet_as_the_engine_says_and_records_its_outcome(
    player, betting_round, place, deal, sent, django_capture_on_commit_callbacks
):
    alice = player("alice", "1000.00")
    place(
        alice,
        betting_round,
        ("banker", "10.00"),
        ("player", "10.00"),
        ("tie", "5.00"),
        ("lucky_six", "10.00"),
        ("lucky_six_3", "1.00"),
    )
    bob = player("bob", "100.00")
    place(bob, betting_round, ("banker", "10.00"), mode="no_commission")
    deal(betting_round, BANKER_SIX)

    with django_capture_on_commit_callbacks(execute=True):
        assert settlement.round_settle(round_id=betting_round.pk) == 6

    alice_bets = {b.type: (b.status, f"{b.payout:.2f}") for b in Bet.objects.filter(user=alice)}
    assert alice_bets == {
        "banker": ("won", "19.50"),
        "player": ("lost", "0.00"),
        "tie": ("lost", "0.00"),
        "lucky_six": ("won", "130.00"),
        "lucky_six_3": ("lost", "0.00"),
    }
    assert Bet.objects.get(user=bob).payout == Decimal("15.00")  # no commission: a winning 6 pays half
    assert balance_of(alice) == Decimal("1000.00") - Decimal("36.00") + Decimal("149.50")
    assert balance_of(bob) == Decimal("105.00")

    round_ = Round.objects.get(pk=betting_round.pk)
    assert round_.state == "settled"
    assert round_.settled_at is not None
    # One ledger transaction for the round: a leg per paid player and one house leg for the total.
    [payout] = LedgerTransaction.objects.filter(kind="payout")
    assert payout.reference == f"round:{betting_round.pk}"
    legs = {(e.wallet.user_id, e.amount, e.balance_after) for e in payout.entries.select_related("wallet")}
    assert legs == {
        (alice.pk, Decimal("149.50"), balance_of(alice)),
        (bob.pk, Decimal("15.00"), balance_of(bob)),
        (None, Decimal("-164.50"), None),
    }
    # Every bet that pays points at it; a lost bet at nothing.
    assert {(b.status, b.settlement_transaction_id) for b in Bet.objects.all()} == {
        ("won", payout.pk),
        ("lost", None),
    }
    assert casino_reconciliation().ok

    by_group = {group: event for group, event in sent}
    alice_event = by_group[f"user_{alice.pk}"]
    assert alice_event["type"] == "round.settled"
    assert alice_event["round_id"] == betting_round.pk
    assert alice_event["total_won"] == "149.50"
    assert alice_event["balance"] == f"{balance_of(alice):.2f}"
    assert {b["type"]: b["payout"] for b in alice_event["bets"]}["lucky_six"] == "130.00"


def test_a_push_returns_the_stake_and_a_player_who_lost_everything_gets_no_payout_transaction(
    player, betting_round, place, deal, sent, django_capture_on_commit_callbacks
):
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, betting_round, ("player", "10.00"), ("banker", "10.00"), ("tie", "1.00"))
    place(bob, betting_round, ("player_pair", "5.00"))
    deal(betting_round, NATURAL_TIE)

    with django_capture_on_commit_callbacks(execute=True):
        settlement.round_settle(round_id=betting_round.pk)

    assert {b.type: (b.status, b.payout) for b in Bet.objects.filter(user=alice)} == {
        "player": ("push", Decimal("10.00")),
        "banker": ("push", Decimal("10.00")),
        "tie": ("won", Decimal("9.00")),
    }
    lost = Bet.objects.get(user=bob)
    assert (lost.status, lost.payout, lost.settlement_transaction_id) == ("lost", Decimal("0.00"), None)
    assert LedgerTransaction.objects.filter(kind="payout").count() == 1
    bob_event = next(event for group, event in sent if group == f"user_{bob.pk}")
    assert (bob_event["total_won"], bob_event["balance"]) == ("0.00", "95.00")
    assert casino_reconciliation().ok


def test_settling_twice_pays_once(player, betting_round, place, deal, sent):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    deal(betting_round, PLAYER_NATURAL)
    assert settlement.round_settle(round_id=betting_round.pk) == 1
    assert settlement.round_settle(round_id=betting_round.pk) == 0
    assert balance_of(alice) == Decimal("110.00")
    assert LedgerTransaction.objects.filter(kind="payout").count() == 1


def test_a_settlement_stamps_the_round_and_its_payout_with_the_now_it_is_given(
    player, betting_round, place, deal, sent
):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    deal(betting_round, PLAYER_NATURAL)
    now = timezone.now() + timedelta(minutes=3)
    assert settlement.round_settle(round_id=betting_round.pk, now=now) == 1
    assert Round.objects.get(pk=betting_round.pk).settled_at == now
    payout = LedgerTransaction.objects.get(kind="payout")
    assert payout.created_at == now
    assert set(payout.entries.values_list("created_at", flat=True)) == {now}


def test_a_refund_stamps_the_cancelled_round_and_its_refund_with_the_now_it_is_given(player, betting_round, place):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    now = timezone.now() + timedelta(minutes=3)
    assert settlement.round_refund(round_id=betting_round.pk, reason="fault", now=now) == 1
    assert Round.objects.get(pk=betting_round.pk).cancelled_at == now
    assert LedgerTransaction.objects.get(kind="refund").created_at == now


def planner_settings() -> tuple[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_sort'), current_setting('enable_nestloop')")
        return cursor.fetchone()


@pytest.mark.parametrize("bets", [True, False], ids=["with bets", "without bets"])
@pytest.mark.parametrize("step", ["settle", "refund"])
def test_the_plans_settlement_forces_are_undone_before_the_rest_of_the_transaction(
    player, betting_round, place, deal, sent, step, bets
):
    # Settlement turns sorting and nested loops off for its two statements over the round's bets; the test's
    # transaction goes on after it, as a caller's would, and must plan as the server is configured.
    if bets:
        place(player("alice", "100.00"), betting_round, ("player", "10.00"))
    assert planner_settings() == ("on", "on")
    if step == "settle":
        deal(betting_round, PLAYER_NATURAL)
        assert settlement.round_settle(round_id=betting_round.pk) == int(bets)
    else:
        assert settlement.round_refund(round_id=betting_round.pk, reason="test") == int(bets)
    assert planner_settings() == ("on", "on")


@pytest.mark.parametrize("state", ["betting", "closed", "dealing", "paused", "cancelled"])
def test_a_round_that_has_no_result_is_not_settled(player, place, state):
    round_ = make_round(make_table("T"), state=state)
    assert settlement.round_settle(round_id=round_.pk) == 0
    assert Round.objects.get(pk=round_.pk).state == state


def test_cancelling_refunds_every_stake_once_and_tells_the_table_and_each_player(
    player, betting_round, place, sent, django_capture_on_commit_callbacks, monkeypatch
):
    table_events = []
    monkeypatch.setattr(events, "table_event", lambda table_id, event: table_events.append((table_id, event)))
    alice, bob = player("alice", "100.00"), player("bob", "50.00")
    place(alice, betting_round, ("player", "10.00"), ("tie", "2.00"))
    place(alice, betting_round, ("banker", "3.00"))
    place(bob, betting_round, ("banker", "50.00"))

    with django_capture_on_commit_callbacks(execute=True):
        assert settlement.round_refund(round_id=betting_round.pk, reason="scanner fault") == 4
    assert settlement.round_refund(round_id=betting_round.pk, reason="again") == 0

    assert balance_of(alice) == Decimal("100.00")
    assert balance_of(bob) == Decimal("50.00")
    assert set(Bet.objects.values_list("outcome__status", flat=True)) == {"refunded"}
    assert set(BetOutcome.objects.values_list("type", "status", "odds")) == {
        (t, "refunded", Decimal(0)) for t in ("player", "tie", "banker")
    }
    assert (
        Round.objects.get(pk=betting_round.pk).settlement_transaction_id
        == LedgerTransaction.objects.get(kind="refund").pk
    )
    assert all(b.payout == b.amount for b in Bet.objects.all())
    [refund] = LedgerTransaction.objects.filter(kind="refund")  # the round's one transaction, two players' legs
    assert refund.entries.filter(balance_after__isnull=False).count() == 2
    round_ = Round.objects.get(pk=betting_round.pk)
    assert (round_.state, round_.reason) == ("cancelled", "scanner fault")
    assert round_.cancelled_at is not None
    assert table_events == [
        (
            betting_round.table_id,
            # the reason kept on the round is internal: players are told a fixed public message
            {
                "type": "round.cancelled",
                "round_id": betting_round.pk,
                "reason": "The round was cancelled and every bet on it refunded.",
                "cause": "operator",  # who or what stopped it, as a code (round_refund's default: an operator cancel)
            },
        )
    ]
    alice_event = next(event for group, event in sent if group == f"user_{alice.pk}")
    assert {b["status"] for b in alice_event["bets"]} == {"refunded"}
    assert alice_event["balance"] == "100.00"
    assert casino_reconciliation().ok


def test_a_settled_round_cannot_be_cancelled_and_a_cancelled_one_cannot_be_settled(
    player, betting_round, place, deal, sent
):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    deal(betting_round, PLAYER_NATURAL)
    settlement.round_settle(round_id=betting_round.pk)
    assert settlement.round_refund(round_id=betting_round.pk, reason="late") == 0
    assert balance_of(alice) == Decimal("110.00")

    Round.objects.filter(pk=betting_round.pk).update(state="settled")
    second = make_round(betting_round.table, number=2)
    place(alice, second, ("player", "10.00"))
    assert settlement.round_refund(round_id=second.pk, reason="fault") == 1
    Round.objects.filter(pk=second.pk).update(cards=[])
    assert settlement.round_settle(round_id=second.pk) == 0
    assert balance_of(alice) == Decimal("110.00")


@pytest.mark.parametrize("state", ["closed", "dealing", "result", "paused"])
def test_any_live_round_can_be_cancelled_and_refunded(player, betting_round, place, state):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    Round.objects.filter(pk=betting_round.pk).update(state=state)
    assert settlement.round_refund(round_id=betting_round.pk, reason="fault") == 1
    assert balance_of(alice) == Decimal("100.00")


def test_a_connected_player_hears_round_settled_on_the_real_channel_layer(
    player, betting_round, place, deal, django_capture_on_commit_callbacks
):
    layer = get_channel_layer()
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    place(bob, betting_round, ("banker", "10.00"))  # bob has no socket: nothing is sent for him
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(f"user_{alice.pk}", channel)
    deal(betting_round, PLAYER_NATURAL)

    with django_capture_on_commit_callbacks(execute=True):
        settlement.round_settle(round_id=betting_round.pk)

    async def receive() -> dict:
        return await asyncio.wait_for(layer.receive(channel), timeout=5)

    event = async_to_sync(receive)()
    assert (event["type"], event["round_id"], event["total_won"], event["balance"]) == (
        "round.settled",
        betting_round.pk,
        "20.00",
        "110.00",
    )


# ── one outcome per kind of bet ───────────────────────────────────────────────


def bet_row_versions(round_id: int) -> dict[int, str]:
    """Each bet row's version (xmin: the transaction that last wrote it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, xmin::text FROM tables_bet WHERE round_id = %s", [round_id])
        return dict(cursor.fetchall())


def test_settlement_writes_one_outcome_per_kind_of_bet_and_leaves_the_bets_as_they_were_placed(
    player, betting_round, place, deal, sent
):
    alice, bob, carol = player("alice", "100.00"), player("bob", "100.00"), player("carol", "100.00")
    place(alice, betting_round, ("player", "10.00"), ("banker", "10.00"))
    place(bob, betting_round, ("player", "10"), ("banker", "5.00"))  # amounts do not make kinds
    place(carol, betting_round, ("banker", "10.00"), mode="no_commission")
    assert not BetOutcome.objects.exists()  # placement writes none
    before = bet_row_versions(betting_round.pk)
    deal(betting_round, BANKER_SIX)

    assert settlement.round_settle(round_id=betting_round.pk) == 5

    assert bet_row_versions(betting_round.pk) == before  # not one bet row rewritten
    outcomes = {(o.type, o.mode): (o.status, o.odds) for o in BetOutcome.objects.filter(round=betting_round)}
    assert outcomes == {
        ("player", "traditional"): ("lost", Decimal(0)),
        ("banker", "traditional"): ("won", Decimal("0.95")),
        ("banker", "no_commission"): ("won", Decimal("0.5")),
    }
    assert sorted((b.type, b.mode, b.amount, b.status, b.payout) for b in Bet.objects.all()) == sorted(
        [
            ("player", "traditional", Decimal("10.00"), "lost", Decimal("0.00")),
            ("player", "traditional", Decimal("10.00"), "lost", Decimal("0.00")),
            ("banker", "traditional", Decimal("10.00"), "won", Decimal("19.50")),
            ("banker", "traditional", Decimal("5.00"), "won", Decimal("9.75")),
            ("banker", "no_commission", Decimal("10.00"), "won", Decimal("15.00")),
        ]
    )
    assert (balance_of(alice), balance_of(bob), balance_of(carol)) == (
        Decimal("99.50"),
        Decimal("94.75"),
        Decimal("105.00"),
    )
    round_ = Round.objects.get(pk=betting_round.pk)
    assert round_.settlement_transaction_id == LedgerTransaction.objects.get(kind="payout").pk
    assert all(b.settled_at == round_.settled_at for b in Bet.objects.select_related("round"))
    assert casino_reconciliation().ok


def immediately() -> None:
    """Run the deferred checks now, as the commit would."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_the_database_refuses_a_finished_round_with_a_bet_that_has_no_outcome(player, betting_round, place):
    from django.db import IntegrityError, transaction

    place(player("alice", "100.00"), betting_round, ("player", "10.00"), ("tie", "1.00"))
    BetOutcome.objects.create(round=betting_round, type="player", mode="traditional", status="refunded")

    def cancel() -> None:
        with transaction.atomic():
            Round.objects.filter(pk=betting_round.pk).update(state="cancelled")
            immediately()

    with pytest.raises(IntegrityError, match="tie traditional bets have no outcome"):
        cancel()
    BetOutcome.objects.create(round=betting_round, type="tie", mode="traditional", status="refunded")
    cancel()
    assert Round.objects.get(pk=betting_round.pk).state == "cancelled"


@pytest.mark.parametrize("change", ["update", "delete"])
def test_an_outcome_once_written_is_never_changed(settled_round, change):
    from django.db import IntegrityError, transaction

    outcomes = BetOutcome.objects.filter(round=settled_round, type="banker")

    def write() -> None:
        with transaction.atomic():
            if change == "update":
                outcomes.update(status="won", odds=Decimal(100))
            else:
                outcomes.delete()

    with pytest.raises(IntegrityError, match="an outcome is written once"):
        write()
    assert outcomes.get().status == "lost"


def test_an_outcome_written_early_refuses_the_whole_settlement(player, betting_round, place, deal, sent):
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    place(bob, betting_round, ("banker", "10.00"))
    # An outcome already there (nothing writes one early; a bug or a hand in the database could): its bets
    # would be paid what it says without being priced. The round's outcomes are written in one INSERT.
    BetOutcome.objects.create(round=betting_round, type="banker", mode="traditional", status="won", odds=50)
    deal(betting_round, PLAYER_NATURAL)

    from django.db import IntegrityError

    with pytest.raises(IntegrityError, match="bet_outcome_unique"):
        settlement.round_settle(round_id=betting_round.pk)

    assert Round.objects.get(pk=betting_round.pk).state == "result"  # rolled back: nothing paid
    assert (balance_of(alice), balance_of(bob)) == (Decimal("90.00"), Decimal("90.00"))
    assert not LedgerTransaction.objects.filter(kind="payout").exists()
    assert sent == []


@pytest.mark.parametrize("step", ["settle", "refund"])
def test_a_round_where_nobody_is_paid_names_no_transaction(player, betting_round, place, deal, sent, step):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"))
    deal(betting_round, BANKER_SIX)

    if step == "settle":
        assert settlement.round_settle(round_id=betting_round.pk) == 1
    else:
        assert settlement.round_refund(round_id=betting_round.pk, reason="fault") == 1
    immediately()

    round_ = Round.objects.get(pk=betting_round.pk)
    if step == "settle":
        assert round_.settlement_transaction_id is None
        assert balance_of(alice) == Decimal("90.00")
        assert not LedgerTransaction.objects.filter(kind="payout").exists()
    else:
        assert round_.settlement_transaction_id == LedgerTransaction.objects.get(kind="refund").pk
        assert balance_of(alice) == Decimal("100.00")
    assert casino_reconciliation().ok


def problems_of(check: str) -> list[str]:
    return [p for p in casino_reconciliation().problems if p.startswith(f"{check}: ")]


@pytest.fixture
def settled_round(player, betting_round, place, deal, sent):
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, betting_round, ("player", "10.00"), ("banker", "10.00"))
    place(bob, betting_round, ("player", "10.00"))
    deal(betting_round, PLAYER_NATURAL)
    settlement.round_settle(round_id=betting_round.pk)
    assert casino_reconciliation().ok
    return betting_round


def test_reconcile_finds_bets_left_open_in_a_finished_round(player, betting_round, place):
    place(player("alice", "100.00"), betting_round, ("player", "10.00"), ("tie", "1.00"))
    from django.db import transaction

    class Undo(Exception):
        pass

    found: list[str] = []

    def look() -> None:
        with transaction.atomic():  # the trigger would refuse it at commit: rolled back
            Round.objects.filter(pk=betting_round.pk).update(state="settled")
            found.extend(problems_of("bet left open in a finished round"))
            raise Undo

    with pytest.raises(Undo):
        look()
    assert len(found) == 2


def test_reconcile_finds_an_outcome_that_does_not_fit_its_round(player, betting_round, place):
    place(player("alice", "100.00"), betting_round, ("player", "10.00"))
    BetOutcome.objects.create(round=betting_round, type="player", mode="traditional", status="won", odds=1)
    assert problems_of("outcome that does not fit its round") == [
        f"outcome that does not fit its round: outcome {BetOutcome.objects.get().pk} (player traditional won)"
        f" on betting round {betting_round.pk}"
    ]


def test_reconcile_finds_payouts_the_ledger_did_not_credit(settled_round):
    # The bets' return comes from their outcome; a ledger that credited less than it says is found.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # a hand past the triggers
        BetOutcome.objects.filter(round=settled_round, type="player").update(odds=Decimal("1.5"))
        cursor.execute("SET LOCAL session_replication_role = origin")
    found = problems_of("settled bets' payouts differ from what the ledger credited for their round")
    assert sorted(found) == sorted(
        f"settled bets' payouts differ from what the ledger credited for their round: round {settled_round.pk},"
        f" player {user.pk}: bets pay 25.00, the ledger credits 20.00"
        for user in {bet.user for bet in Bet.objects.filter(round=settled_round, type="player")}
    )


def test_reconcile_finds_a_round_that_names_another_transaction(settled_round):
    deposit = LedgerTransaction.objects.filter(kind="deposit").first()
    Round.objects.filter(pk=settled_round.pk).update(settlement_transaction=deposit)
    assert len(problems_of("round's settlement transaction is not its own")) == 1
