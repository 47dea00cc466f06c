"""Provably fair shoes: commitment, reproducible order, the verifier."""

import hashlib
import hmac
import re
from collections import Counter
from pathlib import Path

from tables.engine import (
    ALGORITHM,
    Card,
    commitment,
    new_server_seed,
    new_shoe,
    parse_cards,
    shuffled_cards,
    verify_dealt,
    verify_shoe,
)
from tables.engine.fair import HmacStream, shuffle

SEED = "c0ffee" * 10 + "beef"


def test_a_new_server_seed_is_32_random_bytes_in_hex_and_comes_from_the_given_source():
    seed = new_server_seed()
    assert len(seed) == 64
    assert bytes.fromhex(seed)
    assert new_server_seed() != seed
    assert new_server_seed(lambda n: b"\x01" * n) == "01" * 32


def test_the_commitment_is_sha256_of_the_seed_bytes():
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_the_algorithm_is_versioned_v1():
    assert ALGORITHM == "v1"
    assert new_shoe(1, seed_hex=SEED).algorithm == "v1"


def test_the_verifier_accepts_the_shoe_its_seed_produces():
    shoe = new_shoe(8, seed_hex=SEED)
    assert verify_shoe(SEED, shoe.commitment, shoe.cards)
    assert verify_shoe(SEED, shoe.commitment.upper(), [str(c) for c in shoe.cards])


def test_the_verifier_rejects_another_seed_a_wrong_commitment_or_an_altered_order():
    shoe = new_shoe(8, seed_hex=SEED)
    other = "d" + SEED[1:]
    assert not verify_shoe(other, commitment(other), shoe.cards)
    assert not verify_shoe(SEED, commitment(other), shoe.cards)
    swapped = list(shoe.cards)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    assert swapped != shoe.cards
    assert not verify_shoe(SEED, shoe.commitment, swapped)
    assert not verify_shoe(SEED, shoe.commitment, shoe.cards[:-1])
    assert not verify_shoe(SEED, shoe.commitment, ["XX"] * 416)
    assert not verify_shoe("not hex", shoe.commitment, shoe.cards)


def test_a_player_can_check_the_cards_dealt_so_far_against_the_revealed_seed():
    shoe = new_shoe(6, seed_hex=SEED)
    dealt = shoe.cards[: shoe.position + 30]
    assert verify_dealt(SEED, shoe.commitment, 6, dealt)
    assert not verify_dealt(SEED, shoe.commitment, 6, [*dealt[:-1], dealt[0]] if dealt[-1] != dealt[0] else dealt[1:])


def test_shuffled_cards_is_a_pure_function_of_the_seed_and_deck_count():
    assert shuffled_cards(SEED, 8) == shuffled_cards(SEED, 8)
    assert shuffled_cards(SEED, 8)[:52] != shuffled_cards(SEED, 1)


def _chi_square_critical(df: int, z: float) -> float:
    """Wilson–Hilferty approximation of the chi-square quantile with ``z`` standard deviations."""
    k = 2 / (9 * df)
    return df * (1 - k + z * k**0.5) ** 3


def test_the_shuffle_puts_a_marked_card_in_every_position_equally_often():
    # 1 deck, 15,600 shuffles from fixed seeds (deterministic): where does the ace of spades land?
    # Expected 300 per position; the threshold is at about 4.4 standard deviations (p ~ 5e-6), so a fair
    # shuffle essentially never fails and, the seeds being fixed, the outcome never changes between runs.

    marked = Card.parse("AS")
    runs = 15_600
    counts = [0] * 52
    for n in range(runs):
        counts[shuffled_cards(f"{n:064x}", 1).index(marked)] += 1
    expected = runs / 52
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < _chi_square_critical(51, 4.4), chi2
    assert chi2 > _chi_square_critical(51, -4.4), chi2  # suspiciously even would mean no randomness


def test_unbiased_draws_reject_words_at_or_above_the_largest_multiple():
    stream = HmacStream(bytes(32), "test")
    words = iter([2**32 - 1, 7])
    stream.next_word = lambda: next(words)  # type: ignore[method-assign]
    # 2**32 = 1 (mod 3): the single word 2**32 - 1 would favour 0, so it is rejected and the next one used
    assert stream.below(3) == 7 % 3


def test_fisher_yates_reaches_every_permutation_of_three_cards_equally_often():
    cards = parse_cards("AS 2S 3S")
    seen = Counter(tuple(map(str, shuffle(cards, HmacStream(f"{n:032x}".encode(), "t")))) for n in range(6000))
    assert len(seen) == 6
    assert all(900 < c < 1100 for c in seen.values()), seen


def _reference_v1(seed_hex: str, decks: int, cut_low: int, cut_high: int) -> tuple[list[str], int]:
    """docs/provably-fair.md, implemented as plainly as possible (an auditor's version)."""
    seed = bytes.fromhex(seed_hex)

    def words(label: bytes):
        counter = 0
        while True:
            block = hmac.digest(seed, b"baccarat/v1/" + label + b"/" + counter.to_bytes(8, "big"), "sha256")
            for k in range(0, 32, 4):
                yield int.from_bytes(block[k : k + 4], "big")
            counter += 1

    def below(stream, n: int) -> int:
        while True:
            w = next(stream)
            if w < 2**32 - (2**32 % n):
                return w % n

    order = [r + s for _ in range(decks) for s in "SHDC" for r in "A23456789TJQK"]
    stream = words(b"shuffle")
    for i in range(len(order) - 1, 0, -1):
        j = below(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    return order, cut_low + below(words(b"cut"), cut_high - cut_low + 1)


def test_the_shoe_follows_the_documented_v1_algorithm_exactly():
    for n in range(12):
        seed = f"{n * 7919:064x}"
        decks = 1 + n % 8
        order, behind = _reference_v1(seed, decks, 14, 26)
        shoe = new_shoe(decks, seed_hex=seed)
        assert [str(c) for c in shoe.cards] == order
        assert shoe.cards_behind_cut == behind


def test_v1_known_answer_for_the_all_zero_seed():
    # Published in docs/provably-fair.md; a change here is a change of algorithm (needs a new version).
    seed = "00" * 32
    assert commitment(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    assert " ".join(map(str, shuffled_cards(seed, 8)[:12])) == "2C 3H 3H 5D JS 9H QS QC TD KC 4H 7H"
    assert " ".join(map(str, shuffled_cards(seed, 1)[:12])) == "3H 2S 5H 8H AS 5C 4D 4S KD 3D 9D JD"
    assert new_shoe(8, seed_hex=seed).cards_behind_cut == 18


def test_the_fast_hmac_equals_the_standard_library_hmac_for_every_key_length():
    for length in (16, 32, 63, 64, 65, 100):
        key = bytes(range(length))
        stream = HmacStream(key, "shuffle")
        block = hmac.digest(key, b"baccarat/v1/shuffle/" + (0).to_bytes(8, "big"), "sha256")
        assert [stream.next_word() for _ in range(8)] == [
            int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4)
        ]


def test_the_verifier_printed_in_docs_provably_fair_md_agrees_with_the_engine():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "provably-fair.md").read_text()
    namespace: dict = {}
    exec(re.search(r"```python\n(.*?)```", doc, re.DOTALL).group(1), namespace)
    for n, (decks, cut_range) in enumerate([(8, (14, 26)), (1, (14, 26)), (1, (0, 100)), (6, (30, 40))]):
        seed = f"{n * 31337 + 1:064x}"
        digest, order, behind = namespace["v1_shoe"](seed, decks, *cut_range)
        shoe = new_shoe(decks, seed_hex=seed, cut_range=cut_range)
        assert digest == shoe.commitment
        assert order == [str(c) for c in shoe.cards]
        assert behind == shoe.cards_behind_cut
