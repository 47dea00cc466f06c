"""The fast simulation path: integer cards and per-outcome-class cent tables equal the engine's settle."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tables.engine import BET_TYPES, RANKS, SUITS, Card, Paytable, deal_round, new_shoe, settle, shuffled_cards
from tables.engine.payouts import facts_of, settle_facts
from tables.engine.simulation import (
    N_KEYS,
    SIM_BETS,
    bet_stats,
    card_ints,
    deal_key,
    facts_key,
    key_facts,
    settlement_table,
    shoe_seeds,
    shuffled_ints,
    simulate,
)

ALL_CARDS = [Card(r, s) for r in RANKS for s in SUITS]


def bet_and_mode(name: str) -> tuple[str, str]:
    return ("banker", "no_commission") if name == "banker_no_commission" else (name, "traditional")


def test_sim_bets_are_the_14_bet_types_with_banker_in_both_modes():
    assert set(SIM_BETS) == {*BET_TYPES, "banker_no_commission"}


def test_the_cent_table_equals_settle_for_every_outcome_key_and_bet():
    paytables = [Paytable(), Paytable(tie=Decimal(9), banker=Decimal("0.96"), player_natural=Decimal("3.33"))]
    for paytable in paytables:
        for stake_cents in (1, 333, 1001):
            table = settlement_table(paytable, stake_cents)
            stake = Decimal(stake_cents) / 100
            for key in range(N_KEYS):
                facts = key_facts(key)
                for i, name in enumerate(SIM_BETS):
                    bet_type, mode = bet_and_mode(name)
                    _, back = settle_facts(bet_type, stake, facts, mode, paytable)
                    assert table[key][i] == back * 100, (key, name, stake)


def test_facts_key_inverts_key_facts_for_every_possible_key():
    # a "natural round" key (kind 0) is possible only with an 8 or 9 on one side
    possible = [k for k in range(N_KEYS) if (k // 16) % 3 or max(divmod((k // 16) // 3, 10)) >= 8]
    assert len(possible) == N_KEYS - 64 * 16
    assert all(facts_key(key_facts(key)) == key for key in possible)


@given(st.lists(st.sampled_from(ALL_CARDS), min_size=6, max_size=6))
def test_dealing_integer_cards_gives_the_same_round_as_dealing_cards(cards):
    it = iter(cards)
    result = deal_round(it)
    key, pos = deal_key(card_ints(cards), 0)
    assert pos == 6 - len(list(it))
    assert key_facts(key) == facts_of(result)


TABLES = {stake: settlement_table(Paytable(), stake) for stake in (1, 5, 99, 100, 777, 12345)}


@given(st.lists(st.sampled_from(ALL_CARDS), min_size=6, max_size=6), st.sampled_from(sorted(TABLES)))
def test_the_table_row_of_a_dealt_round_is_what_settle_pays(cards, stake_cents):
    result = deal_round(iter(cards))
    key, _ = deal_key(card_ints(cards), 0)
    row = TABLES[stake_cents][key]

    for i, name in enumerate(SIM_BETS):
        bet_type, mode = bet_and_mode(name)
        assert row[i] == settle(bet_type, Decimal(stake_cents) / 100, result, mode) * 100


def test_integer_shuffle_is_the_provably_fair_shuffle():
    for decks in (1, 6, 8):
        seed = f"{decks:064x}"
        assert shuffled_ints(seed, decks) == card_ints(shuffled_cards(seed, decks))


def test_simulate_deals_whole_shoes_exactly_like_the_shoe_procedure():
    # the same shoes dealt the slow way (ShoeState + deal_round) give the same outcome counts
    seeds = shoe_seeds("slow-vs-fast")
    expected = [0] * N_KEYS
    rounds = 0
    for n in range(3):
        shoe = new_shoe(6, seed_hex=seeds(n))
        while not shoe.is_last_round:
            expected[facts_key(facts_of(shoe.deal_round()))] += 1
            rounds += 1
    sim = simulate(rounds, decks=6, seed="slow-vs-fast")
    assert (sim.rounds, sim.shoes) == (rounds, 3)
    assert sim.counts == expected


def test_simulate_is_reproducible_with_a_seed_and_stops_at_the_requested_round():
    a = simulate(1234, decks=1, seed=7)
    assert a.rounds == 1234
    assert sum(a.counts) == 1234
    assert a.counts == simulate(1234, decks=1, seed=7).counts
    assert a.counts != simulate(1234, decks=1, seed=8).counts


def test_simulated_shoes_of_every_size_never_run_out_even_with_extreme_cut_ranges():
    for decks in range(1, 9):
        for cut_range in ((0, 0), (10_000, 10_000), (14, 26)):
            sim = simulate(3000, decks=decks, seed=f"{decks}{cut_range}", cut_range=cut_range)
            assert sim.rounds == 3000


def test_empirical_returns_sit_within_their_interval_of_the_exact_ones():
    stats = bet_stats(simulate(40_000, decks=8, seed="interval"))
    for s in stats.values():
        # shoes are not fresh, so the exact fresh-shoe edge is a (very close) reference; fixed seed: deterministic
        assert s.low - s.ci95 < float(s.exact) < s.high + s.ci95, s
    assert stats["banker"].staked_cents == 40_000 * 100


def test_progress_is_reported_while_simulating():
    seen: list[int] = []
    simulate(2500, decks=8, seed=1, progress=seen.append, progress_every=1000)
    assert seen[-1] == 2500
    assert seen == sorted(seen)
    assert len(seen) >= 3
