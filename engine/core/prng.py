"""The engine's only source of randomness: xoshiro256** seeded through SplitMix64.

Pure Python, no `random` module. Same seed, same stream, on every platform.
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
#: rejection thresholds ((2**64 - n) % n) for small bounds, precomputed
_THRESHOLDS = [0] + [((1 << 64) - n) % n for n in range(1, 257)]
#: lists this long or longer are shuffled with the classic Fisher-Yates loop
_FY_FROM = 512


def _shuffle_table(n: int) -> tuple[int, int, int]:
    """(n!, 64-bit words to draw, rejection limit) for shuffling n items."""
    total = 1
    for i in range(2, n + 1):
        total *= i
    bits = total.bit_length()
    # at least 8 spare bits, so a draw is rejected with probability below 1/256
    words = bits // 64 + (2 if bits % 64 > 56 else 1)
    span = 1 << (64 * words)
    return total, words, span - span % total


#: per list length: (n!, words drawn, rejection limit)
_SHUFFLE = [_shuffle_table(n) for n in range(_FY_FROM)]
#: per list length n up to 18: the (position, radix) pairs (i, i + 1) for i = n-1 .. 1
_RADICES = [tuple((i, i + 1) for i in range(n - 1, 0, -1)) for n in range(19)]


#: the last positions (0 .. _LOW-1) of a one-output shuffle are rearranged in one step
_LOW = 6


def _low_order(q: int) -> tuple[int, ...]:
    """Where each of items 0 .. _LOW-1 comes from after the swaps for positions _LOW-1 .. 1,
    given their mixed-radix digits q (in [0, _LOW!))."""
    order = list(range(_LOW))
    for i in range(_LOW - 1, 0, -1):
        q, j = divmod(q, i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


#: q -> a getter returning items[order[0]], ..., items[order[_LOW-1]] for `_low_order(q)`
_LOW_ORDER = [itemgetter(*_low_order(q)) for q in range(math.factorial(_LOW))]


def _digit_pairs(
    n: int,
) -> tuple[
    tuple[tuple[int, int, int, tuple[tuple[int, int], ...]], ...], tuple[tuple[int, int], ...], bool
]:
    """How a one-output shuffle of n items reads its digits: pairs (i, i - 1, k * (k - 1),
    digits) with digits[q] = (q % k, q // k) for k = i + 1, then the odd radix left, if any;
    with n >= _LOW, only for positions n-1 .. _LOW, and True: the rest is `_LOW_ORDER`."""
    radices = [(i, k) for i, k in _RADICES[n] if n < _LOW or i >= _LOW]
    pairs = []
    for a in range(0, len(radices) - 1, 2):
        (i1, k1), (i2, k2) = radices[a], radices[a + 1]
        pairs.append((i1, i2, k1 * k2, tuple((q % k1, q // k1) for q in range(k1 * k2))))
    return tuple(pairs), tuple(radices[len(radices) - len(radices) % 2 :]), n >= _LOW


#: for the lists that one 64-bit output shuffles (up to 18 items)
_DIGIT_PAIRS = [_digit_pairs(n) for n in range(19)]


_GOLDEN = 0x9E3779B97F4A7C15


def _splitmix64(x: int) -> tuple[int, int]:
    x = (x + _GOLDEN) & _MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x, z ^ (z >> 31)


class Prng:
    """xoshiro256** generator with unbiased bounded integers and a Fisher-Yates shuffle."""

    __slots__ = ("_s",)

    def __init__(self, seed: int) -> None:
        if seed < 0:
            raise ValueError("seed must be a non-negative integer")
        # Fold a seed of any width (e.g. a 256-bit commit-reveal seed) into the SplitMix64 chain.
        x = 0
        while True:
            x ^= seed & _MASK64
            x, _ = _splitmix64(x)
            seed >>= 64
            if seed == 0:
                break
        state = [_splitmix64((x + k * _GOLDEN) & _MASK64)[1] for k in (0, 1, 2, 3)]
        if not any(state):
            state[0] = 1
        self._s = state

    def next_u64(self) -> int:
        """Return the next 64-bit output."""
        s = self._s
        s0, s1, s2, s3 = s
        result = (((s1 * 5) & _MASK64) << 7 | ((s1 * 5) & _MASK64) >> 57) & _MASK64
        result = (result * 9) & _MASK64
        t = (s1 << 17) & _MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & _MASK64
        s[0], s[1], s[2], s[3] = s0, s1, s2, s3
        return result

    def below(self, n: int) -> int:
        """Return an unbiased integer in [0, n) (Lemire-style rejection)."""
        if n <= 0:
            raise ValueError("bound must be positive")
        if n == 1:
            return 0
        threshold = _THRESHOLDS[n] if n <= 256 else ((1 << 64) - n) % n
        while True:
            r = self.next_u64()
            if r >= threshold:
                return r % n

    def shuffle(self, items: list[T]) -> None:
        """Shuffle a list in place, uniformly, with few generator calls.

        One integer r uniform in [0, n!) is drawn by rejection from the concatenation of
        `words` 64-bit outputs (most significant first; see `_SHUFFLE`), then read as the
        mixed-radix digits of a Fisher-Yates shuffle drawing from the end: for i = n-1 .. 1,
        `r, j = divmod(r, i + 1)` and items i and j swap. Lists of `_FY_FROM` items or more
        use the classic Fisher-Yates shuffle (`below(i + 1)` for i = n-1 .. 1) instead.
        """
        n = len(items)
        if n < 2:
            return
        if n >= _FY_FROM:
            self._fisher_yates(items)
            return
        total, words, limit = _SHUFFLE[n]
        s = self._s
        s0, s1, s2, s3 = s
        m = _MASK64
        if words == 1:  # up to 18 items: one output (the common case), small-int arithmetic
            while True:
                x = (s1 * 5) & m
                # bits above 64 of the rotation do not reach the low 64 bits of the product
                r = (((x << 7) | (x >> 57)) * 9) & m
                t = (s1 << 17) & m
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = ((s3 << 45) | (s3 >> 19)) & m
                if r < limit:
                    break
            s[0], s[1], s[2], s[3] = s0, s1, s2, s3
            r %= total
            pairs, last, low = _DIGIT_PAIRS[n]
            for i1, i2, kk, digits in pairs:  # two digits per step, read from a table
                j1, j2 = digits[r % kk]
                r //= kk
                items[i1], items[j1] = items[j1], items[i1]
                items[i2], items[j2] = items[j2], items[i2]
            for i, k in last:
                j = r % k
                r //= k
                items[i], items[j] = items[j], items[i]
            if low:  # the swaps of the last _LOW positions, as one precomputed rearrangement
                items[:_LOW] = _LOW_ORDER[r](items)
            return
        while True:
            r = 0
            for _ in range(words):
                x = (s1 * 5) & m
                r = (r << 64) | ((((x << 7) | (x >> 57)) * 9) & m)
                t = (s1 << 17) & m
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = ((s3 << 45) | (s3 >> 19)) & m
            if r < limit:
                break
        s[0], s[1], s[2], s[3] = s0, s1, s2, s3
        r %= total
        for i in range(n - 1, 0, -1):
            r, j = divmod(r, i + 1)
            items[i], items[j] = items[j], items[i]

    def _fisher_yates(self, items: list[T]) -> None:
        """Fisher-Yates drawing from the end: `below(i + 1)` for i = len-1 .. 1."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[T]) -> T:
        """Return one element chosen uniformly."""
        return items[self.below(len(items))]

    def get_state(self) -> list[int]:
        """Return the internal state (for serialisation)."""
        return list(self._s)

    @classmethod
    def from_state(cls, state: list[int]) -> Prng:
        """Rebuild a generator from `get_state()` output."""
        p = cls.__new__(cls)
        p._s = [int(v) & _MASK64 for v in state]
        return p

    def clone(self) -> Prng:
        """Return an independent copy."""
        p = Prng.__new__(Prng)
        p._s = list(self._s)
        return p
