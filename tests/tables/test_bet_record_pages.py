"""The bet record pages: /bets/ (rounds with the player's own bets, filters, totals over every page, pagination),
/bets/rounds/<id>/ (a round with only the caller's bets) and /bets/export.csv (the filtered record, streamed)."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tables import events
from tables.models import Bet
from tables.services import settlement
from tests.factories import make_round, make_table
from wallets.services import wallet_deposit


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setattr(events, "user_events_send", lambda batch: None)


@pytest.fixture
def play(place, deal):
    """``play(table, number, user_bets={user: [(type, amount)]}, cards=…)`` → a settled round."""

    def do(table, number, user_bets, cards="9H 2D KC 3S", mode="traditional"):
        round_ = make_round(table, number=number, closes_in=60)
        for user, bets in user_bets.items():
            place(user, round_, *bets, mode=mode)
        deal(round_, cards)
        settlement.round_settle(round_id=round_.pk)
        return round_

    return do


@pytest.fixture
def history(player, play, place):
    """alice: a won/lost round on table A (Player natural 9 over 5), a Banker win on table B, an open bet on B;
    bob bets on the first round too."""
    alice, bob = player("alice", "1000.00"), player("bob", "1000.00")
    a, b = make_table("Alpha"), make_table("Bravo")
    first = play(a, 1, {alice: [("player", "10.00"), ("tie", "5.00")], bob: [("banker", "20.00")]})
    # Player 2C 3D draws KH (5); Banker KD 6S stands on 6: Banker wins with a two-card 6 (Lucky Six).
    second = play(b, 1, {alice: [("banker", "40.00"), ("lucky_six", "2.00")]}, cards="2C KD 3D 6S KH")
    live = make_round(b, number=2, closes_in=60)
    place(alice, live, ("player", "3.00"))
    return {"alice": alice, "bob": bob, "a": a, "b": b, "first": first, "second": second, "live": live}


def rounds_on(content: str) -> list[int]:
    return [int(x) for x in re.findall(r'<article class="rec-round" data-round-id="(\d+)"', content)]


def bet_rows(content: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr class="rec-bet" data-bet-id="\d+" data-type="(\w+)" data-status="(\w+)">', content)


def total(content: str, name: str) -> str:
    match = re.search(rf'data-total="{name}"[^>]*><bdi dir="ltr">([^<]*)</bdi>', content) or re.search(
        rf'data-total="{name}"[^>]*>([^<]*)<', content
    )
    assert match, name
    return match.group(1)


def test_the_record_groups_the_players_bets_by_round_with_cards_winner_and_net(client, history):
    client.force_login(history["alice"])
    response = client.get("/bets/")
    assert response.status_code == 200
    content = response.content.decode()
    assert rounds_on(content) == [history["live"].pk, history["second"].pk, history["first"].pk]
    first = content[content.index(f'data-round-id="{history["first"].pk}"') :]
    assert 'data-winner="player"' in first[:80]
    # Cards as faces, left to right, in their own rows, with totals and the translated, coloured winner.
    assert '<div class="rec-deal" dir="ltr">' in first
    assert re.search(r'data-card="9H"[^>]*><b>9</b><i>♥</i>', first)
    assert '<span class="rec-winner winner-player">Player</span>' in first
    rows = bet_rows(first)[:2]
    assert rows == [("player", "won"), ("tie", "lost")]
    assert ">Tie<" in first
    assert ">Traditional<" in first
    assert ">Won<" in first
    assert ">Lost<" in first
    assert '<bdi dir="ltr">+10.00</bdi>' in first  # player: 20.00 back on 10.00
    assert '<bdi dir="ltr">\u22125.00</bdi>' in first  # tie lost
    assert re.search(r'data-round-net><bdi dir="ltr">\+5\.00<', first)
    # The third card of a hand is marked (drawn sideways).
    second = content[content.index(f'data-round-id="{history["second"].pk}"') :]
    assert 'class="rc red third" data-card="KH"' in second.split("</header>")[0]
    live = content[content.index(f'data-round-id="{history["live"].pk}"') :].split("</article>")[0]
    assert "In play" in live
    assert "Pending" in live
    assert bet_rows(live) == [("player", "open")]


def test_totals_cover_everything_selected_not_just_the_page(client, player, play):
    alice = player("alice", "100000.00")
    table = make_table("Long")
    for number in range(1, 24):  # 23 rounds: two pages of 20 and 3
        play(table, number, {alice: [("player", "10.00"), ("banker", "5.00")]})
    client.force_login(alice)
    content = client.get("/bets/").content.decode()
    assert len(rounds_on(content)) == 20
    assert total(content, "rounds") == "23"
    assert total(content, "bets") == "46"
    assert total(content, "staked") == "345.00"
    # Player natural 9 wins: 20.00 back per round, the banker bet lost: 23 × 20.00 returned.
    assert total(content, "returned") == "460.00"
    assert total(content, "net") == "+115.00"
    second = client.get("/bets/?page=2").content.decode()
    assert len(rounds_on(second)) == 3
    assert total(second, "staked") == "345.00"
    assert not set(rounds_on(content)) & set(rounds_on(second))
    # Past the last page: the last page, not an error.
    assert rounds_on(client.get("/bets/?page=99").content.decode()) == rounds_on(second)


def test_page_links_keep_the_filters(client, player, play):
    alice = player("alice", "100000.00")
    table = make_table("Long")
    for number in range(1, 22):
        play(table, number, {alice: [("player", "1.00")]})
    client.force_login(alice)
    content = client.get(f"/bets/?table={table.pk}&type=player").content.decode()
    assert f'href="?table={table.pk}&amp;type=player&amp;page=2"' in content
    assert f'href="/bets/export.csv?table={table.pk}&amp;type=player"' in content


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("type=tie", [("tie", "lost")]),
        ("result=won", [("banker", "won"), ("lucky_six", "won"), ("player", "won")]),
        ("result=open", [("player", "open")]),
        ("type=banker&result=won", [("banker", "won")]),
    ],
)
def test_each_filter_selects_its_bets(client, history, query, expected):
    client.force_login(history["alice"])
    response = client.get(f"/bets/?{query}")
    assert response.status_code == 200
    assert sorted(bet_rows(response.content.decode())) == sorted(expected)


def test_the_table_filter(client, history):
    client.force_login(history["alice"])
    content = client.get(f"/bets/?table={history['a'].pk}").content.decode()
    assert rounds_on(content) == [history["first"].pk]
    assert f'<option value="{history["a"].pk}" selected>Alpha</option>' in content


def test_the_date_filter_takes_whole_utc_days(client, history):
    alice = history["alice"]
    today = timezone.now().date()
    Bet.objects.filter(user=alice, round=history["first"]).update(placed_at=timezone.now() - timedelta(days=3))
    client.force_login(alice)
    old = (today - timedelta(days=3)).isoformat()
    content = client.get(f"/bets/?start={old}&end={old}").content.decode()
    assert rounds_on(content) == [history["first"].pk]
    content = client.get(f"/bets/?start={today.isoformat()}").content.decode()
    assert history["first"].pk not in rounds_on(content)
    assert history["second"].pk in rounds_on(content)
    content = client.get(f"/bets/?end={(today - timedelta(days=1)).isoformat()}").content.decode()
    assert rounds_on(content) == [history["first"].pk]


@pytest.mark.parametrize(
    "query",
    [
        "start=yesterday",
        "end=2026-02-30",
        "start=2026-05-02&end=2026-05-01",
        "end=9999-12-31",
        "start=0001-01-01",
        "table=abc",
        "table=999999",
        "table=99999999999999999999999",
        "type=jackpot",
        "result=maybe",
        "page=0",
        "page=x",
    ],
)
def test_invalid_filters_give_a_form_error_and_no_rows(client, history, query):
    client.force_login(history["alice"])
    response = client.get(f"/bets/?{query}")
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="record-error"' in content
    assert rounds_on(content) == []
    assert 'id="csv-link"' not in content
    assert client.get(f"/bets/export.csv?{query}").status_code == 400


def test_an_empty_record_says_so_and_links_to_the_lobby(client, player, db):
    client.force_login(player("carol"))
    content = client.get("/bets/").content.decode()
    assert 'id="record-empty"' in content
    assert "You have not placed any bets yet." in content
    assert 'href="/"' in content.split('id="record-empty"')[1]
    assert 'id="csv-link"' not in content


def test_no_match_offers_to_clear_the_filters(client, history):
    client.force_login(history["alice"])
    content = client.get("/bets/?type=perfect_pair").content.decode()
    assert "No bets match these filters." in content


def test_other_players_bets_are_never_shown(client, history):
    client.force_login(history["bob"])
    content = client.get("/bets/").content.decode()
    assert rounds_on(content) == [history["first"].pk]
    assert bet_rows(content) == [("banker", "lost")]
    detail = client.get(f"/bets/rounds/{history['second'].pk}/").content.decode()
    assert 'id="round-no-bets"' in detail
    assert bet_rows(detail) == []
    csv_text = b"".join(client.get("/bets/export.csv").streaming_content).decode()
    assert [row["bet"] for row in csv.DictReader(io.StringIO(csv_text))] == ["banker"]


def test_the_round_detail_shows_cards_flags_shoe_and_own_bets(client, history):
    client.force_login(history["alice"])
    first = history["first"]
    response = client.get(f"/bets/rounds/{first.pk}/")
    assert response.status_code == 200
    content = response.content.decode()
    assert '<div class="rec-felt" dir="ltr">' in content
    assert [c for c in re.findall(r'data-card="(\w\w)"', content)] == ["9H", "KC", "2D", "3S"]
    assert 'id="player-total">9<' in content
    assert 'id="banker-total">5<' in content
    assert "Player Natural" in re.search(r'id="round-flags".*?</ul>', content, re.S).group(0)
    assert first.shoe.commitment in content
    assert sorted(bet_rows(content)) == [("player", "won"), ("tie", "lost")]
    assert re.search(r'data-round-net><bdi dir="ltr">\+5\.00<', content)


def test_lucky_six_is_a_flag_of_the_round(client, history):
    client.force_login(history["alice"])
    content = client.get(f"/bets/rounds/{history['second'].pk}/").content.decode()
    assert "Lucky Six" in re.search(r'id="round-flags".*?</ul>', content, re.S).group(0)


@pytest.mark.parametrize("round_id", ["999999", "0", "99999999999999999999999"])
def test_an_unknown_round_is_a_styled_404(client, player, db, round_id):
    client.force_login(player("carol"))
    response = client.get(f"/bets/rounds/{round_id}/")
    assert response.status_code == 404
    assert 'id="round-missing"' in response.content.decode()
    assert "record.css" in response.content.decode()


def test_the_pages_ask_for_a_login(client, db):
    for url in ("/bets/", "/bets/rounds/1/", "/bets/export.csv"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/"), url


def test_the_csv_streams_one_row_per_filtered_bet(client, history):
    client.force_login(history["alice"])
    response = client.get(f"/bets/export.csv?table={history['a'].pk}")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith('attachment; filename="bet-record-')
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["bet"], r["result"]) for r in rows] == [("tie", "lost"), ("player", "won")]
    tie = rows[0]
    bet = Bet.objects.get(user=history["alice"], type="tie")
    assert tie["time_utc"] == bet.placed_at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert (tie["table"], tie["shoe"], tie["round"], tie["bet_name"], tie["mode"]) == (
        "Alpha",
        "1",
        "1",
        "Tie",
        "traditional",
    )
    assert (tie["stake"], tie["payout"], tie["net"]) == ("5.00", "0.00", "-5.00")
    everything = list(csv.DictReader(io.StringIO(b"".join(client.get("/bets/export.csv").streaming_content).decode())))
    open_row = next(r for r in everything if r["result"] == "open")
    assert (open_row["payout"], open_row["net"]) == ("", "")
    assert len(everything) == 5


def test_the_csv_guards_against_formula_injection(client, player, play):
    alice = player("alice")
    for number, name in enumerate(['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)"], start=1):
        play(make_table(name), number, {alice: [("player", "1.00")]})
    client.force_login(alice)
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get("/bets/export.csv").streaming_content).decode())))
    assert sorted(r["table"] for r in rows) == sorted(['\'=HYPERLINK("http://x")', "'+1+1", "'-2+3", "'@SUM(A1)"])
    assert all(r["net"] == "1.00" for r in rows)  # plain numbers are left alone


def test_a_page_costs_the_same_few_queries_for_one_round_or_twenty(client, player, play, django_assert_max_num_queries):
    alice = player("alice", "100000.00")
    tables = [make_table(f"T{i}") for i in range(4)]
    play(tables[0], 1, {alice: [("player", "1.00")]})
    client.force_login(alice)
    client.get("/bets/")  # warm the session
    with django_assert_max_num_queries(10):
        assert client.get("/bets/").status_code == 200
    for number in range(2, 22):
        play(tables[number % 4], number, {alice: [("player", "1.00"), ("banker", "1.00"), ("tie", "1.00")]})
    with django_assert_max_num_queries(10):
        content = client.get("/bets/").content.decode()
    assert len(rounds_on(content)) == 20
    with django_assert_max_num_queries(7):
        assert client.get(f"/bets/rounds/{Bet.objects.filter(user=alice).first().round_id}/").status_code == 200


def test_the_persian_record_is_translated_and_keeps_amounts_and_cards_left_to_right(client, history):
    client.force_login(history["alice"])
    client.cookies["django_language"] = "fa"
    content = client.get("/bets/").content.decode()
    assert '<html lang="fa" dir="rtl">' in content
    for english in (">Won<", ">Lost<", ">Tie<", ">Traditional<", ">Player<", "Round net", "Download CSV", ">Stake<"):
        assert english not in content, english
    assert '<bdi dir="ltr">+10.00</bdi>' in content
    assert '<div class="rec-deal" dir="ltr">' in content


def test_money_is_always_written_with_a_thousands_comma(client, player, play):
    alice = player("alice", "100000.00")
    wallet_deposit(user=alice, amount=Decimal("1"), reason="x")
    play(make_table("Big"), 1, {alice: [("player", "1234.00")]})
    client.force_login(alice)
    for lang in ("en", "ru", "fa"):
        client.cookies["django_language"] = lang
        content = client.get("/bets/").content.decode()
        assert '<bdi dir="ltr">1,234.00</bdi>' in content
        assert '<bdi dir="ltr">+1,234.00</bdi>' in content


def test_a_cancelled_round_shows_as_cancelled_with_its_refunds_at_zero_net(client, player, place):
    alice = player("alice")
    round_ = make_round(make_table("Faulty"), closes_in=60)
    place(alice, round_, ("banker", "7.00"))
    settlement.round_refund(round_id=round_.pk, reason="Card reader fault")
    client.force_login(alice)
    content = client.get("/bets/").content.decode()
    group = content[content.index(f'data-round-id="{round_.pk}"') :].split("</article>")[0]
    assert '<span class="rec-winner winner-none">Cancelled</span>' in group
    assert bet_rows(group) == [("banker", "refunded")]
    assert ">Refunded<" in group
    assert re.search(r'data-round-net><bdi dir="ltr">0\.00<', group)
    detail = client.get(f"/bets/rounds/{round_.pk}/").content.decode()
    assert "Card reader fault" not in detail  # the internal reason stays in the admin and the audit trail
    assert "The round was cancelled and every bet on it refunded." in detail
    assert 'class="rec-felt"' not in detail
