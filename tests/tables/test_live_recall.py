"""A live dealer's shoe and rounds on the players' pages (issue 24): the fairness page says the shoe was dealt
physically and recorded card by card with scan times (no seed, never offered to Verify); the bet record and the
round detail name the dealer and show each card's scan time (game recall); nothing that checks seeds breaks on a
shoe without one (the admin's verification, the table's snapshot)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model

from tables import engine, events
from tables.models import Round, Shoe, Table
from tables.selectors.fair import fair_shoes
from tables.selectors.record import record_round
from tables.selectors.shoes import shoe_verification
from tables.selectors.tables import shoe_info, table_snapshot
from tables.services import settlement
from tests.factories import make_finished_shoe, make_round, make_table, make_user, make_variant
from tests.tables.test_fair_page import page_data

SCANNED = datetime(2026, 11, 27, 14, 2, 31, 250000, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)


@pytest.fixture
def anna(db):
    return make_user("anna-dealer", first_name="Anna", is_staff=True)


@pytest.fixture
def live_table(db, anna):
    return make_table("Live 1", make_variant("Live rules"), dealing=Table.Dealing.LIVE, dealer=anna)


def live_shoe(table: Table, number: int = 1, *, finished: bool = False, ready: bool = True) -> Shoe:
    state = engine.new_live_shoe(table.variant.decks)
    if ready:
        state.scan_burn(engine.Card.parse("5H"))
        state.confirm_burn()
    return Shoe.objects.create(
        table=table,
        number=number,
        state=state.to_dict(),
        server_seed="",
        commitment="",
        algorithm=Shoe.LIVE,
        burn_card=state.burn_card,
        burn_count=state.burn_count,
        finished_at=SCANNED + timedelta(hours=1) if finished else None,
    )


def scanned(round_: Round, dealer) -> Round:
    """The round's cards as a live table stores them: each with its scan time, two seconds apart."""
    cards = [
        {**entry, "dealt_at": (SCANNED + timedelta(seconds=2 * i)).isoformat().replace("+00:00", "Z")}
        for i, entry in enumerate(sorted(round_.cards, key=lambda c: c["position"]))
    ]
    Round.objects.filter(pk=round_.pk).update(cards=cards, dealer=dealer)
    round_.refresh_from_db()
    return round_


@pytest.fixture
def live_round(live_table, anna, player, place, deal):
    """alice bet 10.00 on Player in a live round dealt by Anna: Player 9H KC (9) over Banker 2D 3S (5)."""
    alice = player("alice", "100.00")
    live_shoe(live_table)
    round_ = make_round(live_table, closes_in=60)
    place(alice, round_, ("player", "10.00"))
    round_ = scanned(deal(round_, "9H 2D KC 3S"), anna)
    settlement.round_settle(round_id=round_.pk)
    return {"alice": alice, "round": round_}


# ── game recall: the bet record and the round detail ──────────────────────────


def test_the_round_detail_names_the_dealer_and_each_cards_scan_time(client, live_round):
    client.force_login(live_round["alice"])
    content = client.get(f"/bets/rounds/{live_round['round'].pk}/").content.decode()
    assert 'id="round-dealer" data-dealer="Anna"' in content
    assert "Live dealer: Anna" in content
    rows = re.findall(r'<tr data-position="(\d)" data-card="(\w\w)">.*?class="scan-time">([^<]*)<', content, re.S)
    assert rows == [
        ("1", "9H", "14:02:31.250"),
        ("2", "2D", "14:02:33.250"),
        ("3", "KC", "14:02:35.250"),
        ("4", "3S", "14:02:37.250"),
    ]
    # A live shoe has no commitment nor seed: the shoe section says how it was recorded instead.
    assert 'id="shoe-live"' in content
    assert 'id="shoe-commitment"' not in content


def test_the_selector_gives_the_dealer_and_the_scans_in_deal_order(live_round):
    facts, shoe = record_round(user=live_round["alice"], round_id=live_round["round"].pk)
    assert facts.live
    assert facts.dealer == "Anna"
    assert [(s.position, s.hand, s.face.code) for s in facts.scans] == [
        (1, "player", "9H"),
        (2, "banker", "2D"),
        (3, "player", "KC"),
        (4, "banker", "3S"),
    ]
    assert facts.scans[0].scanned_at == SCANNED
    assert shoe["live"] is True
    assert shoe["commitment"] == ""


def test_the_bet_record_names_the_live_dealer(client, live_round):
    client.force_login(live_round["alice"])
    content = client.get("/bets/").content.decode()
    assert 'class="rec-dealer" data-dealer="Anna"' in content


def test_a_round_of_the_servers_shoe_shows_no_dealer_and_no_scans(client, player, deal):
    alice = player("alice", "100.00")
    round_ = deal(make_round(make_table("Shoe table"), closes_in=60), "9H 2D KC 3S")
    facts, _shoe = record_round(user=alice, round_id=round_.pk)
    assert not facts.live
    assert facts.dealer == ""
    assert facts.scans == []
    client.force_login(alice)
    content = client.get(f"/bets/rounds/{round_.pk}/").content.decode()
    assert "rec-dealer" not in content
    assert 'id="round-scans"' not in content
    assert 'id="shoe-commitment"' in content


def test_a_card_stored_without_a_scan_time_reads_as_a_dash(client, live_round):
    round_ = live_round["round"]
    unscanned = [{k: v for k, v in c.items() if k != "dealt_at"} for c in round_.cards]
    Round.objects.filter(pk=round_.pk).update(cards=unscanned)
    facts, _shoe = record_round(user=live_round["alice"], round_id=round_.pk)
    assert [s.scanned_at for s in facts.scans] == [None] * 4
    client.force_login(live_round["alice"])
    assert client.get(f"/bets/rounds/{round_.pk}/").status_code == 200


# ── the fairness page ────────────────────────────────────────────────────────


def test_a_finished_live_shoe_is_listed_with_its_scans_and_never_offered_to_verify(client, live_table, anna, deal):
    seeded = make_finished_shoe(make_table("Seeded", make_variant("One deck", decks=1, cut_min=8, cut_max=13)))
    shoe = live_shoe(live_table)
    round_ = make_round(live_table, closes_in=60)
    scanned(deal(round_, "9H 2D KC 3S"), anna)
    Round.objects.filter(pk=round_.pk).update(state=Round.State.SETTLED)
    Shoe.objects.filter(pk=shoe.pk).update(finished_at=SCANNED + timedelta(hours=1))

    data = fair_shoes()
    found = {s.id: s for s in data.shoes}
    assert found[shoe.pk].live
    assert not found[shoe.pk].verifiable
    assert found[seeded.pk].verifiable
    dealt = found[shoe.pk].rounds[0]
    assert dealt.dealer == "Anna"
    first_two = [(s.face.code, s.scanned_at) for s in dealt.scans][:2]
    assert first_two == [("9H", SCANNED), ("2D", SCANNED + timedelta(seconds=2))]

    response = client.get("/fair/")
    assert response.status_code == 200
    content = response.content.decode()
    # fair.js recomputes only the seeded shoe; the live one has no Verify button and lists its scan times.
    assert [s["id"] for s in page_data(content)] == [seeded.pk]
    article = re.search(rf'<article class="shoe shoe-live" data-shoe-id="{shoe.pk}".*?</article>', content, re.S)
    assert article, "the live shoe is shown"
    assert 'class="verify"' not in article.group(0)
    assert "Revealed seed" not in article.group(0)
    assert "Live dealer: Anna" in article.group(0)
    assert re.findall(r'class="scan-time" datetime="[^"]+">([^<]+)<', article.group(0)) == [
        "14:02:31",
        "14:02:33",
        "14:02:35",
        "14:02:37",
    ]
    assert 'id="live-dealer-note"' in content


def test_a_live_shoe_in_play_shows_no_commitment(client, live_table):
    live_shoe(live_table, ready=False)
    content = client.get("/fair/").content.decode()
    item = re.search(r'<li class="live-shoe".*?</li>', content, re.S).group(0)
    assert "Dealt by a live dealer" in item
    assert "Commitment" not in item


def test_the_admins_verification_says_a_live_shoe_has_no_seed(client, live_table):
    shoe = live_shoe(live_table, finished=True)
    result = shoe_verification(shoe)
    assert result is not None
    assert not result.ok
    assert "no seed" in result.detail
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pass-word-123")
    client.force_login(admin)
    response = client.get(f"/admin/tables/shoe/{shoe.pk}/change/")
    assert response.status_code == 200
    content = response.content.decode()
    assert 'data-verified="live"' in content
    assert "FAILED" not in content


# ── the table's snapshot while a live shoe is shuffled ─────────────────────────


def test_the_snapshot_says_since_when_a_live_shoe_is_shuffled(live_table):
    shoe = live_shoe(live_table, ready=False)
    info = shoe_info(shoe)
    assert info["live"]
    assert not info["ready"]
    assert info["commitment"] == ""
    assert info["shuffling_since"] is not None
    since = datetime.fromisoformat(info["shuffling_since"].replace("Z", "+00:00"))
    assert abs(since - shoe.created_at) < timedelta(milliseconds=1)  # written to the millisecond
    snapshot = table_snapshot(live_table.pk)
    assert snapshot["table"]["dealing"] == "live"
    assert snapshot["table"]["dealer"] == {"name": "Anna"}
    assert snapshot["shoe"]["shuffling_since"] == info["shuffling_since"]


def test_a_ready_shoe_and_a_servers_shoe_are_not_shuffling(live_table):
    assert shoe_info(live_shoe(live_table))["shuffling_since"] is None
    seeded = make_finished_shoe(make_table("Seeded", make_variant("One deck", decks=1, cut_min=8, cut_max=13)))
    assert shoe_info(seeded)["shuffling_since"] is None
