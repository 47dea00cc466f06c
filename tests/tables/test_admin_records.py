"""The admin of what happened (tables/admin_records/): rounds with their cards as faces, shoes verified from
their revealed seed, bets with a streamed CSV export. Real rounds, driven through the state machine."""

from __future__ import annotations

import csv
import io
from datetime import UTC
from decimal import Decimal

import pytest
from asgiref.sync import async_to_sync
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import AsyncRequestFactory
from django.urls import reverse

from tables.engine import Card
from tables.models import Bet, Round, Shoe
from tables.selectors.shoes import shoe_verification
from tests.factories import make_user, make_variant
from tests.tables.services.rounds_kit import Clock, drive, drive_to_state, fast_table, make_player, place

pytestmark = pytest.mark.django_db

ROUNDS = reverse("admin:tables_round_changelist")
BETS = reverse("admin:tables_bet_changelist")
BETS_CSV = reverse("admin:tables_bet_export")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@pytest.fixture
def operator(db):
    user = make_user("op", is_staff=True)
    user.groups.add(Group.objects.get(name="Table operators"))
    return user


@pytest.fixture
def op_client(client, operator):
    client.force_login(operator)
    return client


def play_round(table, clock: Clock, *stakes) -> Round:
    """One round from its betting window to its settlement; ``stakes``: (user, [(type, amount), …], mode)."""
    round_ = drive_to_state(table, clock, "betting")
    for user, bets, mode in stakes:
        place(user, round_.pk, *bets, mode=mode)
    drive_to_state(table, clock, "settled")
    round_.refresh_from_db()
    return round_


def finish_shoe(table, clock: Clock) -> Shoe:
    drive(table, clock, lambda: Shoe.objects.filter(table=table, finished_at__isnull=False).exists())
    return Shoe.objects.get(table=table, finished_at__isnull=False)


@pytest.fixture
def one_deck_table(db):
    """A 1-deck table: its shoe ends after a handful of rounds."""
    return fast_table("One deck", variant=make_variant("One deck", decks=1, cut_min=6, cut_max=13))


def result_ids(response) -> list[int]:
    assert response.status_code == 200
    return sorted(obj.pk for obj in response.context["cl"].result_list)


def face_html_ok(html: str, code: str) -> bool:
    """The card's face: its code, rank and suit symbol, red or black."""
    card = Card.parse(code)
    rank = "10" if card.rank.value == "T" else card.rank.value
    colour = "red" if card.suit.value in "HD" else "black"
    return (
        f'class="card-face card-{colour}" data-card="{code}"' in html
        and f"{rank}{SUIT_SYMBOLS[card.suit.value]}</span>" in html
    )


# ── rounds ──────────────────────────────────────────────────────────────────


def test_the_rounds_list_filters_by_table_and_state_and_finds_a_round_by_id(op_client):
    clock = Clock()
    red, blue = fast_table("Red"), fast_table("Blue")
    red_settled = play_round(red, clock)
    red_betting = drive_to_state(red, clock, "betting")
    blue_betting = drive_to_state(blue, clock, "betting")

    assert result_ids(op_client.get(ROUNDS)) == sorted([red_settled.pk, red_betting.pk, blue_betting.pk])
    assert result_ids(op_client.get(ROUNDS, {"table__id__exact": red.pk})) == sorted([red_settled.pk, red_betting.pk])
    assert result_ids(op_client.get(ROUNDS, {"state__exact": "betting"})) == sorted([red_betting.pk, blue_betting.pk])
    assert result_ids(op_client.get(ROUNDS, {"table__id__exact": red.pk, "state__exact": "settled"})) == [
        red_settled.pk
    ]
    year = red_settled.opens_at.year
    assert red_settled.pk in result_ids(op_client.get(ROUNDS, {"opens_at__year": year}))

    assert result_ids(op_client.get(ROUNDS, {"q": str(blue_betting.pk)})) == [blue_betting.pk]
    assert result_ids(op_client.get(ROUNDS, {"q": f"#{red_settled.pk}"})) == [red_settled.pk]
    assert result_ids(op_client.get(ROUNDS, {"q": "not an id"})) == []

    listing = op_client.get(ROUNDS, {"table__id__exact": red.pk}).content.decode()
    assert len(red_settled.cards) >= 4
    for entry in red_settled.cards:
        assert face_html_ok(listing, entry["card"])


def test_a_rounds_page_shows_its_cards_as_faces_totals_result_flags_terms_and_every_bet(op_client):
    table, clock = fast_table("Faces"), Clock()
    alice, bob = make_player("alice", "5000.00"), make_player("bob", "5000.00")
    round_ = play_round(
        table,
        clock,
        (alice, [("player", "1234.50"), ("tie", "10.00")], "traditional"),
        (bob, [("banker", "20.00")], "no_commission"),
        (bob, [("player_pair", "5.00")], "traditional"),
    )
    assert round_.state == Round.State.SETTLED

    response = op_client.get(reverse("admin:tables_round_change", args=[round_.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    assert len(round_.cards) >= 4
    for entry in round_.cards:
        assert face_html_ok(html, entry["card"])
        assert f'<tr data-position="{entry["position"]}">' in html
    # the running totals end on the round's totals; the result names the winner
    assert f'title="Player total">{round_.player_total}</td>' in html
    assert f'title="Banker total">{round_.banker_total}</td>' in html
    winner = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[round_.winner]
    assert f"{winner} (Player {round_.player_total} – Banker {round_.banker_total})" in html
    for flag in ("player_pair", "banker_pair", "player_natural", "banker_natural", "lucky_six"):
        assert f'data-flag="{flag}" data-on="{"yes" if round_.flags[flag] else "no"}"' in html
    # the terms it opened with
    assert "Paytable" in html
    assert '<tr data-entry="Tie"><td>Tie</td><td>8:1</td><td class="num">8.00</td></tr>' in html
    assert "5000.00" in html
    # every bet, with its player, type, mode, amount, status and payout
    bets = list(Bet.objects.filter(round=round_).select_related("user"))
    assert len(bets) == 4
    assert "Bets (4)" in html
    for bet in bets:
        row = html.split(f'<tr data-bet="{bet.pk}">', 1)[1].split("</tr>", 1)[0]
        assert bet.status != Bet.Status.OPEN
        for text in (bet.user.username, bet.type, bet.get_mode_display(), f"{bet.amount}", bet.get_status_display()):
            assert text in row
        assert f'<td class="num">{bet.payout}</td>' in row
    assert "1234.50" in html
    # read-only: no save button, no delete link
    assert 'name="_save"' not in html
    assert "deletelink" not in html


def test_a_round_without_cards_or_bets_says_so(op_client):
    round_ = drive_to_state(fast_table("Empty"), Clock(), "betting")
    html = op_client.get(reverse("admin:tables_round_change", args=[round_.pk])).content.decode()
    assert "No card dealt." in html
    assert "No result yet." in html
    assert "No bet was placed on this round." in html


# ── shoes ───────────────────────────────────────────────────────────────────


def test_a_finished_shoe_verifies_from_its_revealed_seed_and_a_live_shoe_keeps_its_seed_secret(
    op_client, one_deck_table
):
    clock = Clock()
    alice = make_player("alice")
    play_round(one_deck_table, clock, (alice, [("banker", "10.00")], "traditional"))
    finished = finish_shoe(one_deck_table, clock)
    live = Shoe.objects.get(table=one_deck_table, finished_at__isnull=True)
    rounds = list(finished.rounds.order_by("number"))
    assert len(rounds) >= 2
    assert all(r.cards for r in rounds)

    html = op_client.get(reverse("admin:tables_shoe_change", args=[finished.pk])).content.decode()
    assert 'data-verified="yes"' in html
    assert "verified" in html
    assert f"all {sum(len(r.cards) for r in rounds)} cards dealt in {len(rounds)} rounds" in html
    assert finished.server_seed in html
    assert finished.commitment in html
    assert face_html_ok(html, finished.burn_card)
    for round_ in rounds:
        assert f'<tr data-round="{round_.pk}">' in html

    live_html = op_client.get(reverse("admin:tables_shoe_change", args=[live.pk])).content.decode()
    assert 'data-verified="pending"' in live_html
    assert live.server_seed not in live_html
    assert live.commitment in live_html
    assert "Secret until the shoe is finished" in live_html
    listing = op_client.get(reverse("admin:tables_shoe_changelist")).content.decode()
    assert live.server_seed not in listing
    assert finished.server_seed not in listing
    # nor can a filter probe the live seed or order, character by character
    probes = [
        (reverse("admin:tables_shoe_changelist"), "server_seed__startswith", live.server_seed[0]),
        (reverse("admin:tables_shoe_changelist"), "state__seed__startswith", live.server_seed[0]),
        (reverse("admin:tables_shoe_changelist"), "state__cards__0", "AS"),
        (ROUNDS, "shoe__server_seed__startswith", live.server_seed[0]),
        (BETS, "round__shoe__server_seed__startswith", live.server_seed[0]),
        (BETS_CSV, "round__shoe__server_seed__startswith", live.server_seed[0]),
    ]
    for url, lookup, value in probes:
        assert op_client.get(url, {lookup: value}).status_code == 400, lookup


def test_a_tampered_dealt_card_makes_the_shoe_fail_its_verification(op_client, one_deck_table):
    shoe = finish_shoe(one_deck_table, Clock())
    second = shoe.rounds.get(number=2)
    cards = sorted(second.cards, key=lambda c: c["position"])
    original = cards[0]["card"]
    cards[0] = {**cards[0], "card": "KH" if original != "KH" else "QS"}
    Round.objects.filter(pk=second.pk).update(cards=cards)

    html = op_client.get(reverse("admin:tables_shoe_change", args=[shoe.pk])).content.decode()

    assert 'data-verified="no"' in html
    assert "FAILED" in html
    assert (
        f"Round 2, card 1 ({cards[0]['hand']}): dealt {cards[0]['card']}, the seed&#x27;s order gives {original}"
        in html
    )


def test_the_verification_names_a_wrong_commitment_a_wrong_burn_or_a_missing_card(one_deck_table):
    shoe = finish_shoe(one_deck_table, Clock())
    assert shoe_verification(shoe).ok

    wrong = Shoe.objects.get(pk=shoe.pk)
    wrong.commitment = "0" * 64
    assert not shoe_verification(wrong).ok
    assert "does not match the commitment" in shoe_verification(wrong).detail

    burnt = Shoe.objects.get(pk=shoe.pk)
    burnt.burn_card = "AS" if burnt.burn_card != "AS" else "2S"
    assert "Burn card" in shoe_verification(burnt).detail

    last = shoe.rounds.order_by("-number").first()
    Round.objects.filter(pk=last.pk).update(cards=last.cards[:-1])
    short = shoe_verification(Shoe.objects.get(pk=shoe.pk))
    assert not short.ok
    assert "its rounds record" in short.detail


# ── bets ────────────────────────────────────────────────────────────────────


def csv_rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def expected_row(bet: Bet) -> dict[str, str]:
    return {
        "id": str(bet.pk),
        "placed_at": bet.placed_at.astimezone(UTC).isoformat(),
        "player": bet.user.username,
        "table": bet.round.table.name,
        "round_id": str(bet.round_id),
        "shoe": str(bet.round.shoe.number),
        "round_number": str(bet.round.number),
        "type": bet.type,
        "mode": bet.mode,
        "amount": f"{bet.amount:.2f}",
        "status": bet.status,
        "payout": "" if bet.payout is None else f"{bet.payout:.2f}",
    }


@pytest.fixture
def some_bets(db):
    """Bets of two players over three rounds (two settled, one open)."""
    table, clock = fast_table("Bets", betting_seconds=30), Clock()
    alice, bob = make_player("alice", "5000.00"), make_player("bob", "5000.00")
    first = play_round(
        table,
        clock,
        (alice, [("player", "1234.50"), ("tie", "10.00")], "traditional"),
        (bob, [("banker", "20.00")], "no_commission"),
    )
    second = play_round(table, clock, (bob, [("player_pair", "5.00"), ("banker", "7.25")], "traditional"))
    third = drive_to_state(table, clock, "betting")
    place(alice, third.pk, ("banker", "100.00"))
    return {"alice": alice, "bob": bob, "rounds": [first, second, third]}


def test_the_bets_csv_is_every_filtered_bet_exactly_as_in_the_database(op_client, some_bets):
    everything = csv_rows(op_client.get(BETS_CSV))
    bets = Bet.objects.select_related("user", "round__table", "round__shoe").order_by("-placed_at", "-id")
    assert everything == [expected_row(bet) for bet in bets]
    assert len(everything) == 6
    assert list(everything[0]) == [
        "id",
        "placed_at",
        "player",
        "table",
        "round_id",
        "shoe",
        "round_number",
        "type",
        "mode",
        "amount",
        "status",
        "payout",
    ]
    assert "1234.50" in [row["amount"] for row in everything]
    assert [row["payout"] for row in everything if row["status"] == "open"] == [""]

    alices = csv_rows(op_client.get(BETS_CSV, {"q": "alice"}))
    assert alices == [expected_row(bet) for bet in bets.filter(user=some_bets["alice"])]
    won = csv_rows(op_client.get(BETS_CSV, {"status": "won", "mode__exact": "traditional"}))
    assert won == [expected_row(bet) for bet in bets.filter(outcome__status="won", mode="traditional")]

    # the list's button carries its filters (not its page)
    listing = op_client.get(BETS, {"status": "won", "p": "1"})
    assert listing.context["export_url"] == f"{BETS_CSV}?status=won"


def test_the_csv_action_exports_the_selected_bets(op_client, some_bets):
    chosen = list(Bet.objects.filter(user=some_bets["bob"]).order_by("-placed_at", "-id"))
    response = op_client.post(BETS, {"action": "export_csv", "_selected_action": [b.pk for b in chosen]})
    rows = csv_rows(response)
    chosen = Bet.objects.filter(pk__in=[b.pk for b in chosen]).select_related("user", "round__table", "round__shoe")
    assert rows == [expected_row(bet) for bet in chosen.order_by("-placed_at", "-id")]
    assert len(rows) == 3


def test_the_csv_streams_under_asgi_too(operator, some_bets):
    request = AsyncRequestFactory().get(BETS_CSV)
    request.user = operator
    response = admin.site._registry[Bet].export_view(request)
    assert response.is_async

    async def collect() -> bytes:
        return b"".join([part async for part in response])

    rows = list(csv.DictReader(io.StringIO(async_to_sync(collect)().decode())))
    assert [row["id"] for row in rows] == [
        str(pk) for pk in Bet.objects.order_by("-placed_at", "-id").values_list("pk", flat=True)
    ]


def test_bets_are_found_by_player_or_round_id_and_filtered_by_status_type_and_mode(op_client, some_bets):
    _first, second, third = some_bets["rounds"]
    bob = some_bets["bob"]

    def ids(**query: str) -> list[int]:
        return result_ids(op_client.get(BETS, query))

    all_ids = sorted(Bet.objects.values_list("pk", flat=True))
    assert ids() == all_ids
    assert ids(q="bob") == sorted(Bet.objects.filter(user=bob).values_list("pk", flat=True))
    assert ids(q=str(second.pk)) == sorted(Bet.objects.filter(round=second).values_list("pk", flat=True))
    assert ids(q=f"#{third.pk}") == sorted(Bet.objects.filter(round=third).values_list("pk", flat=True))
    assert ids(status="open") == sorted(Bet.objects.filter(outcome__status__isnull=True).values_list("pk", flat=True))
    assert ids(status="lost") == sorted(Bet.objects.filter(outcome__status="lost").values_list("pk", flat=True))
    assert ids(type__exact="banker") == sorted(Bet.objects.filter(type="banker").values_list("pk", flat=True))
    assert ids(mode__exact="no_commission") == sorted(
        Bet.objects.filter(mode="no_commission").values_list("pk", flat=True)
    )
    listing = op_client.get(BETS)
    assert set(listing.context["action_form"].fields["action"].choices) >= {
        ("export_csv", "Export the selected bets as CSV")
    }
    assert "delete_selected" not in dict(listing.context["action_form"].fields["action"].choices)
    html = listing.content.decode()
    assert 'class="export-csv"' in html
    assert reverse("admin:tables_bet_add") not in html
    assert Decimal("1234.50") in Bet.objects.values_list("amount", flat=True)


@pytest.mark.parametrize("term", ["²", "①", "#①", "9" * 5000, "٣"])
def test_a_search_that_only_looks_like_an_id_finds_no_round_and_no_bet_rather_than_a_500(op_client, some_bets, term):
    # str.isdigit() says yes to "²" and "①" (int() then failed: a 500), and int() read "٣" as round 3.
    rounds = op_client.get(ROUNDS, {"q": term})
    assert rounds.status_code == 200
    assert result_ids(rounds) == []
    bets = op_client.get(BETS, {"q": term})
    assert bets.status_code == 200
    assert result_ids(bets) == []
