"""The fairness page (/fair/) and its selector: finished shoes with their revealed seeds and dealt cards, the
shoe in play with nothing but its commitment, pagination and filters that refuse bad input with a 4xx."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tables import engine
from tables.models import Shoe
from tables.selectors.fair import PAGE_SIZE, fair_shoes
from tables.selectors.shoes import shoe_verification
from tests.factories import make_finished_shoe, make_table, make_variant


def make_live_shoe(table, number: int) -> Shoe:
    seed = engine.new_server_seed()
    state = engine.new_shoe(table.variant.decks, seed_hex=seed)
    return Shoe.objects.create(
        table=table,
        number=number,
        state=state.to_dict(),
        server_seed=seed,
        commitment=engine.commitment(seed),
        burn_card=state.burn_card,
        burn_count=state.burn_count,
    )


@pytest.fixture
def one_deck(db):
    return make_variant("One deck", decks=1, cut_min=8, cut_max=13)


@pytest.fixture
def table(one_deck):
    return make_table("Fair 1", one_deck)


def page_data(content: str) -> list[dict]:
    match = re.search(r'<script id="fair-data" type="application/json">(.*?)</script>', content, re.S)
    assert match, "the page carries its shoes as JSON for fair.js"
    return json.loads(match.group(1))


# ── the selector ─────────────────────────────────────────────────────────────


def test_the_selector_gives_a_finished_shoe_with_its_seed_and_every_dealt_card_in_order(table):
    shoe = make_finished_shoe(table)
    assert shoe_verification(shoe).ok  # the fixture is a shoe the admin's check accepts
    data = fair_shoes()
    assert [s.id for s in data.shoes] == [shoe.pk]
    found = data.shoes[0]
    assert found.seed == shoe.server_seed
    assert found.commitment == shoe.commitment
    assert found.decks == 1
    assert found.burn_card == shoe.burn_card
    assert found.behind_cut == 52 - shoe.state["cut_index"]
    assert found.rounds_dealt == shoe.rounds.count() > 0

    dealt = [card for r in found.verification_data()["rounds"] for card in r["cards"]]
    order = [str(c) for c in engine.shuffled_cards(shoe.server_seed, 1)]
    start = 1 + shoe.burn_count
    assert dealt == order[start : start + len(dealt)]
    assert found.verification_data()["rounds"][-1]["last"] is True


def test_the_selector_never_gives_the_seed_of_a_shoe_in_play(table):
    make_finished_shoe(table, 1)
    live = make_live_shoe(table, 2)
    data = fair_shoes()
    assert [s.number for s in data.shoes] == [1]
    assert [(s.number, s.commitment) for s in data.live] == [(2, live.commitment)]
    assert not hasattr(data.live[0], "seed")


def test_the_selector_pages_newest_first_and_filters_by_table(one_deck):
    first, second = make_table("Fair A", one_deck), make_table("Fair B", one_deck)
    start = timezone.now() - timedelta(days=1)
    for n in range(1, PAGE_SIZE + 2):
        make_finished_shoe(first, n, finished_at=start + timedelta(minutes=n))
    other = make_finished_shoe(second, 1, finished_at=start)

    page1 = fair_shoes()
    assert [s.number for s in page1.shoes] == list(range(PAGE_SIZE + 1, 1, -1))
    assert page1.page.paginator.num_pages == 2
    assert [s.id for s in fair_shoes(page=2).shoes] == [first.shoes.get(number=1).pk, other.pk]
    only = fair_shoes(table_id=second.pk)
    assert [s.id for s in only.shoes] == [other.pk]
    assert only.table == second


# ── the page ─────────────────────────────────────────────────────────────────


def test_anyone_can_read_the_page_without_signing_in(client, table):
    shoe = make_finished_shoe(table)
    response = client.get("/fair/")
    assert response.status_code == 200
    content = response.content.decode()
    assert "Provably fair shoes" in content
    assert shoe.server_seed in content
    assert shoe.commitment in content
    assert 'class="verify"' in content
    assert "casino/fair.js" in content
    assert 'src="/jsi18n/"' in content
    assert "<details" in content
    assert "<details open" not in content
    assert [s["seed"] for s in page_data(content)] == [shoe.server_seed]


def test_the_shoe_in_play_shows_its_commitment_but_never_its_seed_or_order(client, table):
    make_finished_shoe(table, 1)
    live = make_live_shoe(table, 2)
    content = client.get("/fair/").content.decode()
    assert live.commitment in content
    assert live.server_seed not in content
    assert "Seed revealed when the shoe ends" in content
    assert [s["number"] for s in page_data(content)] == [1]
    # Not even the next cards of its order: the live shoe's order from its burn on is nowhere on the page.
    upcoming = "".join(live.state["cards"][live.state["position"] : live.state["position"] + 6])
    assert upcoming not in re.sub(r"\s", "", content)


def test_the_rounds_cards_go_to_the_page_with_their_hands_and_winner(client, table):
    shoe = make_finished_shoe(table)
    content = client.get("/fair/").content.decode()
    rounds = page_data(content)[0]["rounds"]
    assert len(rounds) >= 2
    assert [r["number"] for r in rounds] == list(shoe.rounds.order_by("number").values_list("number", flat=True))
    for data, row in zip(rounds, shoe.rounds.order_by("number"), strict=True):
        assert data["cards"] == [c["card"] for c in row.cards]
        assert data["hands"] == "".join(c["hand"][0].upper() for c in row.cards)
        assert data["winner"] == row.winner
    assert f'<ol class="rounds" data-shoe-id="{shoe.pk}"></ol>' in content  # drawn by fair.js when opened


def test_filtering_by_table_and_paging(client, one_deck):
    first, second = make_table("Fair A", one_deck), make_table("Fair B", one_deck)
    start = timezone.now() - timedelta(days=1)
    for n in range(1, PAGE_SIZE + 2):
        make_finished_shoe(first, n, finished_at=start + timedelta(minutes=n))
    make_finished_shoe(second, 1, finished_at=start)
    content = client.get("/fair/").content.decode()
    assert len(page_data(content)) == PAGE_SIZE
    assert 'rel="next" href="?page=2"' in content
    assert len(page_data(client.get("/fair/?page=2").content.decode())) == 2
    only = client.get(f"/fair/?table={second.pk}").content.decode()
    assert [s["table"] for s in page_data(only)] == ["Fair B"]
    assert f'<option value="{second.pk}" selected>' in only


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("?page=99", 404),
        ("?table=999999", 404),
        ("?page=abc", 400),
        ("?page=0", 400),
        ("?page=-1", 400),
        ("?table=abc", 400),
        ("?table=1%27%20OR%201=1", 400),
        ("?page=99999999999999999999", 400),
    ],
)
def test_bad_page_and_table_parameters_are_a_clear_4xx_not_a_500(client, table, query, status):
    make_finished_shoe(table)
    response = client.get("/fair/" + query)
    assert response.status_code == status
    if status == 400:
        content = response.content.decode()
        assert 'role="alert"' in content
        assert "must be" in content


def test_no_finished_shoe_yet_is_said_plainly(client, table):
    make_live_shoe(table, 1)
    content = client.get("/fair/").content.decode()
    assert "No shoe has finished yet" in content
    assert page_data(content) == []


def test_the_page_is_translated(client, table):
    make_finished_shoe(table)
    client.cookies["django_language"] = "fa"
    content = client.get("/fair/").content.decode()
    assert '<html lang="fa" dir="rtl">' in content
    for english in ("Provably fair shoes", "Verify", "Revealed seed", "Finished shoes", "Check any seed yourself"):
        assert f">{english}<" not in content


def test_the_page_reads_the_same_few_queries_however_many_shoes_it_shows(
    client, one_deck, django_assert_max_num_queries
):
    for name in ("Fair A", "Fair B"):
        table = make_table(name, one_deck)
        for n in range(1, 4):
            make_finished_shoe(table, n)
        make_live_shoe(table, 4)
    with django_assert_max_num_queries(6):  # tables, count, shoes, their rounds, shoes in play
        response = client.get("/fair/")
    assert len(page_data(response.content.decode())) == 6
