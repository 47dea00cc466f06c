"""The five roads the live table page draws are exactly the engine's (tables.engine.roads), cell for cell."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tables.engine import RoundResult, commitment, deal_round, new_shoe, parse_cards, roads
from tables.models import Round, Shoe
from tables.selectors.tables import cards_with_totals
from tests.factories import make_table, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

ROAD_NAMES = ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig")

# Rounds dealt by the real tableau from chosen cards (deal order P1 B1 P2 B2 [P3] [B3]).
TIE = "2H 3D 6C 5S"  # 8 – 8
TIE_PLAYER_PAIR = "4H 3D 4C 5S"  # 8 – 8, Player pair
TIE_BANKER_PAIR = "3H 9D 5C 9S"  # 8 – 8, Banker pair
BANKER = "3H 4D 4C 5S"  # Player 7, Banker 9
BANKER_PAIR = "3H 9D 4C 9S"  # Player 7, Banker 8, Banker pair
BANKER_BOTH_PAIRS = "2H 4D 2C 4S"  # Player 4, Banker 8, both pairs
PLAYER = "4H 3D 5C 4S"  # Player 9, Banker 7
PLAYER_PAIR = "9H 3D 9C 4S"  # Player 8, Banker 7, Player pair
PLAYER_THIRD = "2H 3D 3C 3S 4D"  # Player 5 draws a 4: 9, Banker 6 stands; Banker pair

SCRIPT = [
    TIE,  # two leading ties: counted on the first Big Road cell
    TIE_PLAYER_PAIR,
    PLAYER_PAIR,
    # a nine-long Banker dragon: six down, then its tail turns right along the bottom row
    BANKER,
    BANKER_PAIR,
    BANKER,
    TIE,
    BANKER,
    BANKER,
    BANKER,
    BANKER_BOTH_PAIRS,
    BANKER,
    BANKER,
    # seven Players: the column meets the dragon's tail and turns right a row higher
    *[PLAYER, PLAYER_THIRD, PLAYER, PLAYER_PAIR, PLAYER, PLAYER, PLAYER],
    BANKER,
    PLAYER,
    BANKER,
    PLAYER,
    BANKER,
    TIE,
    TIE_BANKER_PAIR,  # two ties on one cell
    PLAYER,
    PLAYER,
    BANKER,
    BANKER_PAIR,
    BANKER,
    PLAYER,
    TIE,
    BANKER,
    PLAYER_THIRD,
    PLAYER,
    PLAYER,
    BANKER,
]


def scripted_results() -> list[RoundResult]:
    """The script above, then the first 40 rounds of a real shoe (more columns for the derived roads)."""
    results = [deal_round(parse_cards(cards)) for cards in SCRIPT]
    shoe = new_shoe(8, seed_hex=hashlib.sha256(b"test-roads").hexdigest())
    while len(results) < len(SCRIPT) + 40 and not shoe.is_last_round:
        results.append(shoe.deal_round())
    return results


@pytest.fixture
def table_with_a_shoe():
    """A table whose current shoe holds the scripted rounds, all settled; the ticker has nothing to do on it
    (its next deadline is a day away), so the page shows these rounds and no other."""
    now = timezone.now()
    table = make_table("Roads", make_variant("Baccarat"), next_action_at=now + timedelta(days=1))
    state = new_shoe(8, seed_hex=hashlib.sha256(b"test-roads-shoe").hexdigest())
    shoe = Shoe.objects.create(
        table=table,
        number=1,
        state=state.to_dict(),
        server_seed=state.seed,
        commitment=commitment(state.seed),
        burn_card=str(state.burn_card),
        burn_count=state.burn_count,
    )
    results = scripted_results()
    start = now - timedelta(minutes=len(results))
    Round.objects.bulk_create(
        Round(
            table=table,
            shoe=shoe,
            number=n,
            state=Round.State.SETTLED,
            opens_at=start + timedelta(minutes=n),
            closes_at=start + timedelta(minutes=n, seconds=15),
            closed_at=start + timedelta(minutes=n, seconds=15),
            dealing_started_at=start + timedelta(minutes=n, seconds=15),
            result_at=start + timedelta(minutes=n, seconds=20),
            settled_at=start + timedelta(minutes=n, seconds=21),
            cards=[
                {"hand": hand, "card": str(card), "position": i}
                for i, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
            ],
            player_total=result.player_total,
            banker_total=result.banker_total,
            winner=result.winner,
            flags=result.flags(),
            is_last_of_shoe=False,
        )
        for n, result in enumerate(results, start=1)
    )
    return table, [r.flags() for r in results]


def drawn_cells(page) -> dict[str, list[dict[str, Any]]]:
    return page.evaluate(
        """(names) => Object.fromEntries(names.map((name) => [name,
            [...document.querySelectorAll(`svg[data-road="${name}"] .cell`)].map((el) => ({
              col: Number(el.dataset.col),
              row: Number(el.dataset.row),
              mark: el.dataset.winner ?? el.dataset.color ?? null,
              ties: el.dataset.ties === undefined ? null : Number(el.dataset.ties),
              banker_pair: el.querySelector(".pair.fb") !== null,
              player_pair: el.querySelector(".pair.fp") !== null,
            }))]))""",
        list(ROAD_NAMES),
    )


def expected_cells(engine: dict[str, Any], name: str) -> list[dict[str, Any]]:
    out = []
    for cell in engine[name]:
        entry = {"col": cell["col"], "row": cell["row"], "mark": cell.get("winner", cell.get("color"))}
        if name == "big_road":
            entry["ties"] = cell["ties"]
        if name in ("bead_plate", "big_road"):
            entry["banker_pair"], entry["player_pair"] = cell["banker_pair"], cell["player_pair"]
        out.append(entry)
    return sorted(out, key=lambda c: (c["col"], c["row"]))


def assert_the_page_draws(page, engine: dict[str, Any]) -> None:
    """Every road on the page is the engine's, cell for cell (one element per cell, none in the same place)."""
    drawn = drawn_cells(page)
    for name in ROAD_NAMES:
        cells = drawn[name]
        assert len(cells) == len(engine[name]), f"{name}: {len(cells)} cells drawn, the engine has {len(engine[name])}"
        assert len({(c["col"], c["row"]) for c in cells}) == len(cells), f"{name}: two cells in one place"
        if not cells:
            continue
        want = expected_cells(engine, name)
        got = sorted(
            ({k: c[k] for k in want[0]} for c in cells),
            key=lambda c: (c["col"], c["row"]),
        )
        assert got == want, f"{name} differs from tables.engine.roads"


def test_the_page_draws_every_road_cell_the_engine_computes_for_the_shoe(casino_url, page, table_with_a_shoe):
    table, flags = table_with_a_shoe
    engine = roads(flags)

    # The script does what it says: leading ties, two ties on a cell, pairs, a dragon whose tail turns right.
    big = engine["big_road"]
    assert engine["leading_ties"] == 2
    assert big[0]["ties"] == 2
    assert any(c["ties"] >= 2 for c in big[1:])
    assert any(c["banker_pair"] and c["player_pair"] for c in big)
    assert max(c["streak_index"] for c in big if c["winner"] == "banker") >= 8
    assert any(c["row"] == 5 and c["col"] > c["streak"] for c in big)  # a tail along the bottom row
    assert any(c["row"] < 5 and c["streak_index"] > c["row"] for c in big)  # a tail turned higher up
    assert all(engine[name] for name in ROAD_NAMES)

    page.goto(f"{casino_url}/tables/{table.id}/")
    last = Round.objects.filter(table=table).order_by("-number").first()
    page.wait_for_selector(f"#table[data-round-id='{last.id}'][data-round-state='settled']")
    page.wait_for_function(
        "n => document.querySelectorAll('svg[data-road=\"bead_plate\"] .cell').length === n", arg=len(flags)
    )
    assert_the_page_draws(page, engine)

    # Nothing moved the table while the page drew it: these rounds are the ones on the scoreboard.
    assert Round.objects.filter(table=table).count() == len(flags)


# Rounds added one result at a time: a tie with a Banker pair (the Big Road's last cell gains a tie: that cell is
# redrawn), both pairs, then plain wins (new Big Road columns, derived marks).
MORE = [TIE_BANKER_PAIR, BANKER_BOTH_PAIRS, PLAYER, PLAYER_PAIR, BANKER, TIE, PLAYER_THIRD]


def drawn_marks(engine: dict[str, Any], name: str) -> dict[tuple[int, int], dict[str, Any]]:
    """What each cell of a road shows, by place."""
    return {(c["col"], c["row"]): c for c in expected_cells(engine, name)}


def feed(page, frame: dict[str, Any]) -> None:
    page.evaluate("(frame) => window.casinoTable.handle(frame)", frame)


def test_a_result_draws_only_the_cells_it_adds_and_a_new_shoe_empties_the_roads(casino_url, page, table_with_a_shoe):
    table, flags = table_with_a_shoe
    page.goto(f"{casino_url}/tables/{table.id}/")
    last = Round.objects.filter(table=table).order_by("-number").first()
    page.wait_for_selector(f"#table[data-round-id='{last.id}'][data-round-state='settled']")
    page.wait_for_function(
        "n => document.querySelectorAll('svg[data-road=\"bead_plate\"] .cell').length === n", arg=len(flags)
    )
    assert_the_page_draws(page, roads(flags))

    def play(round_id: int, number: int, result: RoundResult, shown: list[dict[str, Any]]) -> dict[str, Any]:
        """Feed the page a round (opened, then its result carrying the roads of ``shown``); the engine's roads."""
        now = timezone.now()
        feed(
            page,
            {
                "type": "round.opened",
                "table_id": table.id,
                "round_id": round_id,
                "number": number,
                "closes_at": (now + timedelta(seconds=15)).isoformat(),
                "betting_seconds": 15,
                "bet_types": [],
                "server_time": now.isoformat(),
            },
        )
        engine = roads(shown)
        cards = [
            {"hand": hand, "card": str(card), "position": i}
            for i, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
        ]
        feed(
            page,
            {
                "type": "round.result",
                "table_id": table.id,
                "round_id": round_id,
                "number": number,
                "cards": cards_with_totals(cards),
                "winner": result.winner,
                "player_total": result.player_total,
                "banker_total": result.banker_total,
                "flags": result.flags(),
                "roads": engine,
            },
        )
        page.wait_for_selector(f"#table[data-round-id='{round_id}'][data-round-state='result']")
        return engine

    # Every cell element on the page now is remembered; a result must leave each cell it does not change in place.
    remember = """() => { window.__cells = new WeakSet(document.querySelectorAll("svg[data-road] .cell")); }"""
    kept = """(names) => Object.fromEntries(names.map((name) => [name,
        [...document.querySelectorAll(`svg[data-road="${name}"] .cell`)].map((el) =>
          [Number(el.dataset.col), Number(el.dataset.row), window.__cells.has(el)])]))"""
    shown = list(flags)
    before = roads(shown)
    round_id = last.id + 1000
    for n, cards in enumerate(MORE, start=1):
        page.evaluate(remember)
        result = deal_round(parse_cards(cards))
        shown.append(result.flags())
        engine = play(round_id + n, len(shown), result, shown)
        assert_the_page_draws(page, engine)
        places = page.evaluate(kept, list(ROAD_NAMES))
        redrawn = {}
        for name in ROAD_NAMES:
            old, new = drawn_marks(before, name), drawn_marks(engine, name)
            changed = {place for place, cell in new.items() if old.get(place) != cell}
            redrawn[name] = {(col, row) for col, row, same in places[name] if not same}
            assert redrawn[name] == changed, (
                f"round {len(shown)}, {name}: redrew {sorted(redrawn[name])}, the result changed {sorted(changed)}"
            )
        if cards == TIE_BANKER_PAIR:
            # the tie: one more bead; on the Big Road, only its last cell (now with one more tie) is drawn again
            tail = engine["big_road"][-1]
            assert tail["ties"] == before["big_road"][-1]["ties"] + 1
            assert redrawn["big_road"] == {(tail["col"], tail["row"])}
            assert len(redrawn["bead_plate"]) == 1
            assert not any(redrawn[name] for name in ("big_eye_boy", "small_road", "cockroach_pig"))
        before = engine

    # The same roads again (a snapshot after the result) draw nothing.
    page.evaluate(remember)
    feed(
        page,
        {
            "type": "round.result",
            "table_id": table.id,
            "round_id": round_id + len(MORE),
            "number": len(shown),
            "cards": [],
            "winner": shown[-1]["winner"],
            "player_total": 0,
            "banker_total": 0,
            "flags": shown[-1],
            "roads": before,
        },
    )
    places = page.evaluate(kept, list(ROAD_NAMES))
    assert all(same for name in ROAD_NAMES for _, _, same in places[name])

    # A new shoe: every road empties, the statistics start again; the next result draws from nothing.
    feed(
        page,
        {
            "type": "shoe.shuffled",
            "table_id": table.id,
            "shoe_number": 2,
            "commitment": "ab" * 32,
            "cards_left": 416,
            "previous_shoe": None,
        },
    )
    page.wait_for_selector("#phase[data-phase='shuffle']")
    assert page.evaluate("document.querySelectorAll('#roads svg[data-road] .cell').length") == 0
    assert page.evaluate("document.querySelectorAll('#roads svg[data-road]').length") == len(ROAD_NAMES)
    assert page.text_content("#stats [data-stat='rounds'] .stat-count") == "0"
    first = deal_round(parse_cards(PLAYER_PAIR))
    engine = play(round_id + 100, 1, first, [first.flags()])
    assert_the_page_draws(page, engine)
    assert page.text_content("#stats [data-stat='rounds'] .stat-count") == "1"
