"""bet_place: a batch of bets confirmed all or nothing, the stake moved to the house in the same transaction."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from baccarat_site.errors import DomainError
from tables import events
from tables.models import Bet, BetPlacement, Round
from tables.selectors.bets import casino_reconciliation
from tables.services import placement
from tests.factories import make_round, make_table, make_user, make_variant
from wallets import selectors as wallet_selectors
from wallets.models import LedgerEntry, LedgerTransaction, Wallet


def balance_of(user) -> Decimal:
    return Wallet.objects.get(user=user).balance


def nothing_changed(user, balance: str, entries: int) -> bool:
    return (
        balance_of(user) == Decimal(balance)
        and LedgerEntry.objects.count() == entries
        and not Bet.objects.exists()
        and not BetPlacement.objects.exists()
    )


def refused(code: str, fn, *args, **kwargs) -> DomainError:
    with pytest.raises(DomainError) as caught:
        fn(*args, **kwargs)
    assert caught.value.code == code, caught.value.detail
    return caught.value


def test_a_confirmed_batch_moves_its_total_stake_to_the_house_in_one_ledger_transaction(player, betting_round, place):
    alice = player("alice", "100.00")
    answer = place(
        alice, betting_round, ("player", "10.00"), ("tie", "2.50"), ("player_pair", "1"), mode="no_commission"
    )

    assert answer["balance"] == "86.50"
    assert [(b["type"], b["amount"], b["mode"], b["status"]) for b in answer["bets"]] == [
        ("player", "10.00", "no_commission", "open"),
        ("tie", "2.50", "no_commission", "open"),
        ("player_pair", "1.00", "no_commission", "open"),
    ]
    bets = list(Bet.objects.filter(round=betting_round).order_by("id"))
    assert [b.pk for b in bets] == [b["id"] for b in answer["bets"]]
    assert all(b.mode == "no_commission" and b.status == "open" and b.payout is None for b in bets)
    placement = BetPlacement.objects.get()
    stake = placement.stake_transaction
    assert stake.kind == LedgerTransaction.Kind.STAKE
    assert sorted(e.amount for e in stake.entries.all()) == [Decimal("-13.50"), Decimal("13.50")]
    assert stake.entries.get(wallet__user=alice).balance_after == Decimal("86.50")
    assert balance_of(alice) == Decimal("86.50")
    assert wallet_selectors.house_balance() == Decimal("-86.50")
    assert casino_reconciliation().ok


def test_one_bad_bet_refuses_the_whole_batch(player, betting_round, place):
    alice = player("alice", "100.00")
    refused("below_min", place, alice, betting_round, ("player", "10.00"), ("banker", "0.50"))
    assert nothing_changed(alice, "100.00", 2)


@pytest.mark.parametrize(
    ("amount", "code"),
    [
        ("0", "invalid_amount"),
        ("0.00", "invalid_amount"),
        ("-5.00", "invalid_amount"),
        ("1.001", "invalid_amount"),
        ("NaN", "invalid_amount"),
        ("Infinity", "invalid_amount"),
        ("1e309", "invalid_amount"),
        ("12345678901234567890", "invalid_amount"),
        ("99999999999.99", "invalid_amount"),
        (10, "invalid_amount"),
        (10.5, "invalid_amount"),
        (None, "invalid_amount"),
        # A regular expression ending in "$" lets one trailing newline through: these used to be accepted.
        ("10\n", "invalid_amount"),
        (" 10", "invalid_amount"),
        ("10.00\n", "invalid_amount"),
        # Within the column, but Player's binding maximum is the Player/Banker difference limit.
        ("9999999999.99", "pb_difference_limit"),
    ],
)
def test_amounts_that_are_not_positive_cents_within_the_column_are_refused(player, betting_round, place, amount, code):
    alice = player("alice", "100.00")
    refused(code, place, alice, betting_round, ("player", amount))
    assert nothing_changed(alice, "100.00", 2)


def test_an_unknown_bet_type_and_an_unknown_mode_are_refused(player, betting_round, place):
    alice = player("alice", "100.00")
    refused("unknown_bet_type", place, alice, betting_round, ("dragon", "5.00"))
    refused("invalid_mode", place, alice, betting_round, ("banker", "5.00"), mode="half")
    assert nothing_changed(alice, "100.00", 2)


@pytest.mark.parametrize("bets", [[], "player", [["player", "1.00"]], [{"type": "player"}], [{"amount": "1.00"}], {}])
def test_a_malformed_batch_is_an_invalid_request(player, betting_round, bets):
    alice = player("alice", "100.00")
    refused(
        "invalid_request",
        placement.bet_place,
        user=alice,
        round_id=betting_round.pk,
        mode="traditional",
        bets=bets,
        idempotency_key="k",
    )
    assert nothing_changed(alice, "100.00", 2)


@pytest.mark.parametrize("state", ["closed", "dealing", "result", "settled", "paused", "cancelled"])
def test_a_round_that_is_not_betting_refuses_bets(player, place, state):
    alice = player("alice", "100.00")
    round_ = make_round(make_table("T"), state=state)
    refused("betting_closed", place, alice, round_, ("player", "5.00"))
    assert nothing_changed(alice, "100.00", 2)


def test_a_round_whose_window_has_passed_refuses_bets_even_before_the_ticker_closes_it(player, place):
    alice = player("alice", "100.00")
    round_ = make_round(make_table("T"), closes_in=-0.001)
    assert round_.state == Round.State.BETTING
    refused("betting_closed", place, alice, round_, ("player", "5.00"))
    assert nothing_changed(alice, "100.00", 2)


def test_a_paused_table_refuses_bets(player, betting_round, place):
    alice = player("alice", "100.00")
    betting_round.table.status = "paused"
    betting_round.table.save()
    refused("betting_closed", place, alice, betting_round, ("player", "5.00"))


def test_an_unknown_round_is_not_found(player):
    alice = player("alice", "100.00")
    for round_id in (987654, 2**63 - 1, 2**70):
        error = refused(
            "round_not_found",
            placement.bet_place,
            user=alice,
            round_id=round_id,
            mode="traditional",
            bets=[{"type": "player", "amount": "1.00"}],
            idempotency_key=f"unknown-{round_id}",
        )
        assert error.status == 404


def test_a_bet_type_not_offered_at_the_table_is_unavailable(player, place):
    limits = {"player": {"min": "1.00", "max": "100.00"}, "banker": {"min": "1.00", "max": "100.00"}}
    table = make_table("Plain", variant=make_variant("Plain", limits=limits))
    alice = player("alice", "100.00")
    refused("bet_unavailable", place, alice, make_round(table), ("tie", "5.00"))


def test_a_side_bet_past_its_shoe_round_limit_is_unavailable(player, place):
    alice = player("alice", "100.00")
    table = make_table("Late")
    late = make_round(table, number=51)
    refused("bet_unavailable", place, alice, late, ("any_pair", "5.00"))
    answer = place(alice, late, ("player_pair", "5.00"))  # available up to round 60
    assert answer["bets"][0]["type"] == "player_pair"


def test_per_type_maximum_counts_what_the_player_already_has_on_the_round(player, betting_round, place):
    alice = player("alice", "10000.00")
    place(alice, betting_round, ("tie", "400.00"))
    refused("above_max", place, alice, betting_round, ("tie", "5000.01"))
    refused("above_max", place, alice, betting_round, ("tie", "4600.01"))
    place(alice, betting_round, ("tie", "4600.00"))


def test_the_player_banker_difference_limit_follows_the_rules_example(player, place):
    table = make_table("PB", variant=make_variant("PB 500", pb_difference_limit=Decimal("500.00")))
    round_ = make_round(table)
    alice = player("alice", "10000.00")
    place(alice, round_, ("player", "500.00"))
    refused("pb_difference_limit", place, alice, round_, ("banker", "1000.01"))
    place(alice, round_, ("banker", "1000.00"))
    refused("pb_difference_limit", place, alice, round_, ("banker", "0.01"))

    bob = player("bob", "10000.00")
    refused("pb_difference_limit", place, bob, round_, ("banker", "500.01"))
    place(bob, round_, ("player", "500.00"), ("banker", "1000.00"))  # within one batch too
    refused("pb_difference_limit", place, bob, round_, ("player", "1500.01"))


def test_a_batch_the_wallet_does_not_cover_is_refused(player, betting_round, place):
    alice = player("alice", "20.00")
    refused("insufficient_funds", place, alice, betting_round, ("player", "15.00"), ("banker", "5.01"))
    assert nothing_changed(alice, "20.00", 2)
    answer = place(alice, betting_round, ("player", "15.00"), ("banker", "5.00"))
    assert answer["balance"] == "0.00"


def test_a_player_without_a_wallet_has_nothing_to_bet(player, betting_round, place):
    refused("insufficient_funds", place, make_user("nobody"), betting_round, ("player", "1.00"))


def test_the_same_key_and_body_returns_the_first_answer_again(player, betting_round, place):
    alice = player("alice", "100.00")
    first = place(alice, betting_round, ("player", "10.00"), key="key-1")
    again = place(alice, betting_round, ("player", "10.00"), key="key-1")
    assert again == first
    assert Bet.objects.count() == 1
    assert balance_of(alice) == Decimal("90.00")


def test_a_replay_after_the_window_closed_still_returns_the_first_answer(player, betting_round, place):
    alice = player("alice", "100.00")
    first = place(alice, betting_round, ("player", "10.00"), key="key-1")
    Round.objects.filter(pk=betting_round.pk).update(state="closed", closes_at=timezone.now() - timedelta(seconds=1))
    assert place(alice, betting_round, ("player", "10.00"), key="key-1") == first
    refused("betting_closed", place, alice, betting_round, ("player", "10.00"), key="key-2")


def test_a_different_body_under_the_same_key_is_a_conflict_and_changes_nothing(player, betting_round, place):
    alice = player("alice", "100.00")
    place(alice, betting_round, ("player", "10.00"), key="key-1")
    error = refused("idempotency_conflict", place, alice, betting_round, ("player", "10.01"), key="key-1")
    assert error.status == 409
    refused("idempotency_conflict", place, alice, betting_round, ("player", "10.00"), mode="no_commission", key="key-1")
    assert Bet.objects.count() == 1
    assert balance_of(alice) == Decimal("90.00")


def test_keys_belong_to_one_player(player, betting_round, place):
    alice, bob = player("alice", "100.00"), player("bob", "100.00")
    place(alice, betting_round, ("player", "10.00"), key="shared")
    place(bob, betting_round, ("player", "10.00"), key="shared")
    assert Bet.objects.count() == 2


def test_the_table_hears_that_bets_changed_after_commit(
    player, betting_round, place, monkeypatch, django_capture_on_commit_callbacks
):

    heard = []
    monkeypatch.setattr(events, "bets_changed", lambda **kw: heard.append(kw), raising=False)
    alice = player("alice", "100.00")
    with django_capture_on_commit_callbacks(execute=True):
        place(alice, betting_round, ("player", "10.00"))
    assert heard == [{"table_id": betting_round.table_id, "round_id": betting_round.pk}]


def test_a_confirm_whose_totals_broadcast_fails_is_still_confirmed(
    player, betting_round, place, monkeypatch, django_capture_on_commit_callbacks
):
    """Redis unreachable just after the commit: the stored bet is answered as placed, not as an error."""

    def unreachable(**_kw):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(events, "bets_totals_send", unreachable)
    monkeypatch.setattr(events, "redis_client", lambda: None)  # the throttle fails too: it sends unthrottled
    alice = player("alice", "100.00")
    with django_capture_on_commit_callbacks(execute=True):
        placed = place(alice, betting_round, ("player", "10.00"))
    assert placed is not None
    assert Bet.objects.filter(user=alice).count() == 1
    assert balance_of(alice) == Decimal("90.00")


def test_an_anonymous_caller_cannot_place_bets(betting_round):
    error = refused(
        "not_authenticated",
        placement.bet_place,
        user=AnonymousUser(),
        round_id=betting_round.pk,
        mode="traditional",
        bets=[{"type": "player", "amount": "1.00"}],
        idempotency_key=None,
    )
    assert error.status == 401


def test_an_operator_changing_the_limits_mid_round_leaves_the_rounds_own_limits_alone(player, betting_round, place):
    alice = player("alice", "10000.00")
    place(alice, betting_round, ("tie", "100.00"))
    betting_round.table.variant.bets.filter(bet_type="tie").update(max_stake="150.00")
    # The round keeps the terms it opened with (tie up to 5,000.00); the edit applies from the next round.
    place(alice, betting_round, ("tie", "1000.00"))
    from tables.services.settlement import round_refund

    round_refund(round_id=betting_round.pk, reason="the round is over")  # finished, with its bets' outcomes
    next_round = make_round(betting_round.table, number=2)
    refused("above_max", place, alice, next_round, ("tie", "150.01"))
    place(alice, next_round, ("tie", "150.00"))


def test_player_1000_then_banker_1500_is_accepted_at_a_1000_difference_limit_and_2500_is_not(player, place):
    limits = {t: {"min": "1.00", "max": "1000.00"} for t in ("player", "banker", "tie")}
    variant = make_variant("PB 1000", limits=limits, pb_difference_limit=Decimal("1000.00"))
    round_ = make_round(make_table("PB 1000", variant=variant))
    alice = player("alice", "10000.00")
    place(alice, round_, ("player", "1000.00"))
    refused("pb_difference_limit", place, alice, round_, ("banker", "2500.00"))
    place(alice, round_, ("banker", "1500.00"))
    assert sorted(Bet.objects.filter(user=alice).values_list("type", "amount")) == [
        ("banker", Decimal("1500.00")),
        ("player", Decimal("1000.00")),
    ]


def test_a_confirm_without_an_idempotency_key_is_refused_so_a_retry_can_never_bet_twice(player, betting_round):
    alice = player("alice", "100.00")
    for key in (None, "", "   "):
        refused(
            "idempotency_key_required" if key is None else "invalid_request",
            placement.bet_place,
            user=alice,
            round_id=betting_round.pk,
            mode="traditional",
            bets=[{"type": "player", "amount": "1.00"}],
            idempotency_key=key,
        )
    assert nothing_changed(alice, "100.00", 2)


def test_a_disabled_account_cannot_bet_even_with_a_user_object_from_before(player, betting_round, place):
    """A socket keeps the user it connected with: the service reads is_active itself, under the wallet's lock."""
    alice = player("alice", "100.00")
    stale = type(alice).objects.get(pk=alice.pk)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert stale.is_active
    error = refused("account_disabled", place, stale, betting_round, ("player", "5.00"))
    assert error.status == 403
    assert nothing_changed(alice, "100.00", 2)


def test_a_confirm_is_judged_at_the_moment_it_is_given(player, betting_round):
    """``bet_place(now=…)``: the window is judged at that moment, and the bets carry it."""
    alice = player("alice", "100.00")

    def confirm(at):
        return placement.bet_place(
            user=alice,
            round_id=betting_round.pk,
            mode="traditional",
            bets=[{"type": "player", "amount": "10.00"}],
            idempotency_key=str(at),
            now=at,
        )

    refused("betting_closed", confirm, betting_round.closes_at + timedelta(milliseconds=1))
    at = betting_round.closes_at - timedelta(milliseconds=1)
    confirm(at)
    assert Bet.objects.get(user=alice).placed_at == at
    assert Bet.objects.get(user=alice).status == "open"
