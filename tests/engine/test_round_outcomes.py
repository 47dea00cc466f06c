"""``round_outcomes``: every bet type in every mode for a finished round, as the table page marks its spots
(``round.result`` and the snapshot carry it). It is ``bet_outcome`` itself, over every round the rules can deal."""

from decimal import Decimal
from functools import cache
from itertools import product

from tables.engine import (
    BET_TYPES,
    DEFAULT_PAYTABLE,
    MODES,
    Facts,
    Paytable,
    RoundResult,
    bet_outcome,
    deal_round,
    facts_of,
    outcome_marks,
    parse_cards,
    round_outcomes,
)
from tables.engine.payouts import settle_facts

D = Decimal
RANKS = "A23456789TK"  # every point value, and two ranks worth 0 (a zero hand with no pair)


@cache
def every_facts() -> frozenset[Facts]:
    """The facts of every round the rules can deal (first four cards of every rank, suits that make pairs perfect
    or not, third cards from each total class): every winner, total, natural, pair and card count that exists."""
    out: set[Facts] = set()
    thirds = parse_cards("AS 4D 6C 9H TS")
    for p1, b1, p2, b2 in product(RANKS, repeat=4):
        for suits in ("SSSS", "SHDC"):
            first = parse_cards(f"{p1}{suits[0]} {b1}{suits[1]} {p2}{suits[2]} {b2}{suits[3]}")
            for t1, t2 in product(thirds, repeat=2):
                out.add(facts_of(deal_round([*first, t1, t2])))
    return frozenset(out)


# Not computed at import: dealing these 700,000-odd rounds took 5 s of every collection (of every worker's, and of
# runs that select none of these tests); the tests that need them compute them once, on first use.


def test_every_bet_type_and_mode_is_bet_outcome_on_every_round_the_rules_can_deal():
    all_facts = every_facts()
    assert len(all_facts) > 900
    assert {f.winner for f in all_facts} == {"player", "banker", "tie"}
    assert {(f.player_total, f.banker_total) for f in all_facts} == set(product(range(10), repeat=2))
    assert {f.banker_card_count for f in all_facts} == {2, 3}
    odd = Paytable(tie=D(9), banker=D("0.9"), bonus_margins=((9, D(30)),))
    for facts in all_facts:
        for paytable in (DEFAULT_PAYTABLE, odd):
            outcomes = round_outcomes(facts, paytable)
            assert set(outcomes) == set(BET_TYPES)
            for bet_type, by_mode in outcomes.items():
                assert set(by_mode) == set(MODES)
                for mode, (outcome, odds) in by_mode.items():
                    assert (outcome, odds) == bet_outcome(bet_type, facts, mode, paytable)
                    # What settlement pays for that outcome: the page never marks a spot the money disagrees with.
                    paid = settle_facts(bet_type, D("10.00"), facts, mode, paytable)
                    assert paid[0] == outcome
                    assert (
                        paid[1]
                        == {
                            "won": D("10.00") + (D("10.00") * odds).quantize(D("0.01"), "ROUND_DOWN"),
                            "push": D("10.00"),
                            "lost": D(0),
                        }[outcome]
                    )
            marks = outcome_marks(facts, paytable)
            assert marks == {t: {m: outcomes[t][m][0] for m in MODES} for t in BET_TYPES}


def hands(player: str, banker: str) -> Facts:
    return facts_of(RoundResult.from_cards(parse_cards(player), parse_cards(banker)))


def test_a_banker_six_pays_half_without_commission_and_a_natural_tie_pushes_the_bonus_bets():
    six = round_outcomes(hands("KS 5D 9H", "4H 2C"))  # banker 6 on two cards vs player 4
    assert six["banker"] == {"traditional": ("won", D("0.95")), "no_commission": ("won", D("0.5"))}
    assert six["player"]["traditional"] == ("lost", D(0))
    assert six["lucky_six"]["traditional"] == ("won", D(12))
    assert six["lucky_six_2"]["no_commission"] == ("won", D(22))
    assert six["lucky_six_3"]["traditional"][0] == "lost"

    tie = outcome_marks(hands("8S KH", "8D KC"))  # natural 8 - 8
    assert tie["player"] == tie["banker"] == {"traditional": "push", "no_commission": "push"}
    assert tie["tie"]["traditional"] == "won"
    assert tie["player_bonus"] == tie["banker_bonus"] == {"traditional": "push", "no_commission": "push"}

    margin = outcome_marks(hands("KS 6D", "3H 4C"))  # banker 7 vs 6: margin 1, no bonus
    assert margin["banker_bonus"]["traditional"] == "lost"
    assert margin["banker"]["traditional"] == "won"
