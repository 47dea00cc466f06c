"""Provably fair shuffle, algorithm "v1" (described for auditors in docs/provably-fair.md).

The shoe order and the cut-card position are a pure function of a secret 32-byte server seed:

* a byte stream ``HMAC-SHA256(key=seed, msg="baccarat/v1/" + label + "/" + counter as 8 bytes big-endian)``
  for counter = 0, 1, 2, … (blocks concatenated);
* unbiased integers below ``n`` from that stream by rejection sampling on 32-bit big-endian words;
* Fisher–Yates over the canonical unshuffled order (label ``shuffle``); the cut card from label ``cut``.

``sha256(seed)`` is published before the shoe's first card; the seed is revealed after its last round.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Sequence
from typing import TypeVar

from .cards import Card, as_card, fresh_order

ALGORITHM = "v1"
SEED_BYTES = 32
MIN_SEED_BYTES = 16
_PREFIX = b"baccarat/" + ALGORITHM.encode() + b"/"
_WORD = 2**32
#: Rejection thresholds for below(m), m ≤ 8 decks: the largest multiple of m not above 2**32.
_LIMITS = [0] + [2**32 - 2**32 % m for m in range(1, 52 * 8 + 1)]
T = TypeVar("T")


def new_server_seed(rng: Callable[[int], bytes] | None = None) -> str:
    """A fresh secret seed as 64 hex digits, from ``rng(n) -> n random bytes`` (default: the OS CSPRNG)."""
    return (rng or secrets.token_bytes)(SEED_BYTES).hex()


def seed_bytes(seed_hex: str) -> bytes:
    try:
        seed = bytes.fromhex(seed_hex)
    except (ValueError, TypeError):
        raise ValueError("a server seed is a string of hex digits") from None
    if len(seed) < MIN_SEED_BYTES:
        raise ValueError(f"a server seed has at least {MIN_SEED_BYTES} bytes")
    return seed


def commitment(seed_hex: str) -> str:
    """The public commitment to a seed: sha256 of the seed's bytes, as lowercase hex."""
    return hashlib.sha256(seed_bytes(seed_hex)).hexdigest()


class HmacStream:
    """Deterministic random words: HMAC-SHA256 in counter mode, keyed by the seed, separated by label.

    Block ``i`` is ``HMAC-SHA256(seed, "baccarat/v1/<label>/" + i as 8 bytes big-endian)``; the stream is
    the blocks concatenated, read as consecutive unsigned 32-bit big-endian words (8 per block).
    """

    def __init__(self, seed: bytes, label: str) -> None:
        # HMAC (RFC 2104) with the keyed inner state (after the message prefix) and outer state computed once
        # and copied for each block; equal to hmac.digest(seed, prefix + counter, "sha256").
        key = hashlib.sha256(seed).digest() if len(seed) > 64 else seed
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(k ^ 0x36 for k in key) + _PREFIX + label.encode() + b"/")
        self._outer = hashlib.sha256(bytes(k ^ 0x5C for k in key))
        self._counter = 0
        self._words: list[int] = []
        self._position = 0

    def _reserve(self, words: int) -> None:
        """Make sure at least ``words`` unread words are buffered (computing whole blocks, in order)."""
        missing = words - (len(self._words) - self._position)
        if missing <= 0:
            return
        blocks = -(-missing // 8)
        inner, outer, first = self._inner, self._outer, self._counter
        parts = []
        for i in range(blocks):
            h = inner.copy()
            h.update((first + i).to_bytes(8, "big"))
            o = outer.copy()
            o.update(h.digest())
            parts.append(o.digest())
        self._counter += blocks
        self._words = self._words[self._position :] + list(struct.unpack(f">{8 * blocks}I", b"".join(parts)))
        self._position = 0

    def next_word(self) -> int:
        self._reserve(1)
        word = self._words[self._position]
        self._position += 1
        return word

    def below(self, n: int) -> int:
        """A uniform integer in [0, n): 32-bit words, rejecting those at or above the largest multiple of n."""
        if not 1 <= n <= _WORD:
            raise ValueError("n must be between 1 and 2**32")
        limit = _WORD - _WORD % n
        while True:
            word = self.next_word()
            if word < limit:
                return word % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Fisher–Yates (Durstenfeld): for i from n−1 down to 1, swap items[i] with items[j], j = below(i + 1).

        The same draws as calling ``below`` in a loop, with the words fetched in bulk.
        """
        out = list(items)
        n = len(out)
        if n > len(_LIMITS):
            return self._shuffle_slowly(out)
        self._reserve(n)  # invariant: at least as many unread words as draws still to make
        words, position = self._words, self._position
        for i in range(n - 1, 0, -1):
            m = i + 1
            limit = _LIMITS[m]
            word = words[position]
            position += 1
            while word >= limit:  # probability below m / 2**32
                self._position = position
                self._reserve(i + 1)
                words, position = self._words, self._position
                word = words[position]
                position += 1
            j = word % m
            out[i], out[j] = out[j], out[i]
        self._position = position
        return out

    def _shuffle_slowly(self, out: list[T]) -> list[T]:
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def shuffle(items: Sequence[T], stream: HmacStream) -> list[T]:
    """Fisher–Yates over ``items`` driven by ``stream`` (see HmacStream.shuffle)."""
    return stream.shuffle(items)


def shuffled_cards(seed_hex: str, decks: int) -> list[Card]:
    """The whole shoe in dealing order (index 0 is the first card out: the burn card)."""
    return shuffle(fresh_order(decks), HmacStream(seed_bytes(seed_hex), "shuffle"))


def cards_behind_cut(seed_hex: str, low: int, high: int) -> int:
    """How many cards lie behind the cut card: uniform in [low, high] from the seed's ``cut`` stream."""
    if low > high:
        raise ValueError("empty cut range")
    return low + HmacStream(seed_bytes(seed_hex), "cut").below(high - low + 1)


def verify_shoe(seed_hex: str, commitment_hex: str, cards: Sequence[Card | str]) -> bool:
    """True iff the seed matches the published commitment and the whole shoe order is the one it produces."""
    try:
        if not hmac.compare_digest(commitment(seed_hex), commitment_hex.strip().lower()):
            return False
        order = [as_card(c) for c in cards]
    except (ValueError, AttributeError):
        return False
    if len(order) % 52 or not 1 <= len(order) // 52 <= 8:
        return False
    return order == shuffled_cards(seed_hex, len(order) // 52)


def verify_dealt(seed_hex: str, commitment_hex: str, decks: int, dealt: Sequence[Card | str]) -> bool:
    """True iff the seed matches the commitment and ``dealt`` (burn card first) is how its shoe begins."""
    try:
        if not hmac.compare_digest(commitment(seed_hex), commitment_hex.strip().lower()):
            return False
        seen = [as_card(c) for c in dealt]
        order = shuffled_cards(seed_hex, decks)
    except (ValueError, AttributeError):
        return False
    return len(seen) <= len(order) and seen == order[: len(seen)]
