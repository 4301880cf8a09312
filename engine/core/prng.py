"""The engine's only source of randomness: xoshiro256** seeded through SplitMix64.

Pure Python, no `random` module. Same seed, same stream, on every platform.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any, TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
#: rejection thresholds ((2**64 - n) % n) for small bounds, precomputed
_THRESHOLDS = [0] + [((1 << 64) - n) % n for n in range(1, 257)]
#: the last positions (0 .. _LOW-1) of a shuffle are rearranged in one step, from a table
_LOW = 6
#: radices up to this are read two digits at a time, from a table of k * (k - 1) digit pairs
_PAIR_MAX = 16


def _orders(m: int) -> tuple[Callable[[Sequence[Any]], tuple[Any, ...]], ...]:
    """For each q in [0, m!): a getter returning items[order[0]], ..., items[order[m-1]],
    where `order` is where each of items 0 .. m-1 comes from after the Fisher-Yates swaps for
    positions m-1 .. 1 read from the mixed-radix digits of q."""
    out = []
    for q in range(math.factorial(m)):
        order = list(range(m))
        for i in range(m - 1, 0, -1):
            q, j = divmod(q, i + 1)
            order[i], order[j] = order[j], order[i]
        out.append(itemgetter(*order))
    return tuple(out)


#: m -> `_orders(m)` for the last m = min(n, _LOW) positions of an n-item shuffle (n >= 2)
_LOW_ORDERS = {m: _orders(m) for m in range(2, _LOW + 1)}
#: k -> the digit pairs (q % k, q // k) for q in [0, k * (k - 1)): radices k and k - 1 at once
_DIGIT_PAIRS: dict[int, tuple[tuple[int, int], ...]] = {}

#: how a shuffle of n items reads its random number (see `_shuffle_plan`)
_Plan = tuple[
    int,
    range,
    int,
    tuple[tuple[int, int], ...],
    tuple[tuple[int, int, int, tuple[tuple[int, int], ...]], ...],
    int,
    tuple[Callable[[Sequence[Any]], tuple[Any, ...]], ...],
]
_PLANS: dict[int, _Plan] = {}


def _digit_pairs(k: int) -> tuple[tuple[int, int], ...]:
    pairs = _DIGIT_PAIRS.get(k)
    if pairs is None:
        pairs = _DIGIT_PAIRS[k] = tuple((q % k, q // k) for q in range(k * (k - 1)))
    return pairs


def _shuffle_plan(n: int) -> _Plan:
    """How a shuffle of n >= 2 items reads r uniform in [0, n!): (n!, a range of the 64-bit
    words to draw, rejection limit, the positions read one digit at a time as (i, radix), those read two at
    a time as (i, i - 1, radix product, digit pairs), m, `_LOW_ORDERS[m]` for the last m)."""
    plan = _PLANS.get(n)
    if plan is not None:
        return plan
    total = math.factorial(n)
    bits = total.bit_length()
    # at least 8 spare bits, so a draw is rejected with probability below 1/256
    words = bits // 64 + (2 if bits % 64 > 56 else 1)
    span = 1 << (64 * words)
    low = min(n, _LOW)
    radices = [(i, i + 1) for i in range(n - 1, low - 1, -1)]
    singles = [(i, k) for i, k in radices if k > _PAIR_MAX]
    small = [(i, k) for i, k in radices if k <= _PAIR_MAX]
    if len(small) % 2:
        singles.append(small.pop(0))
    pairs = tuple(
        (small[a][0], small[a + 1][0], small[a][1] * small[a + 1][1], _digit_pairs(small[a][1]))
        for a in range(0, len(small), 2)
    )
    plan = (total, range(words), span - span % total, tuple(singles), pairs, low, _LOW_ORDERS[low])
    if len(_PLANS) > 1024:
        _PLANS.clear()
    _PLANS[n] = plan
    return plan


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
        `words` 64-bit outputs (most significant first; see `_shuffle_plan`), then read as the
        mixed-radix digits of a Fisher-Yates shuffle drawing from the end: for i = n-1 .. 1,
        `r, j = divmod(r, i + 1)` and items i and j swap. One code path for every length: the
        plan only says how the digits are read (one at a time, two at a time from a table, and
        the last few positions as one precomputed rearrangement), never what they are.
        """
        n = len(items)
        if n < 2:
            return
        total, words, limit, singles, pairs, low, orders = _PLANS.get(n) or _shuffle_plan(n)
        draw = self.next_u64
        while True:
            r = 0
            for _ in words:
                r = (r << 64) | draw()
            if r < limit:
                break
        r %= total
        for i, k in singles:
            j = r % k
            r //= k
            items[i], items[j] = items[j], items[i]
        for i1, i2, kk, digits in pairs:
            j1, j2 = digits[r % kk]
            r //= kk
            items[i1], items[j1] = items[j1], items[i1]
            items[i2], items[j2] = items[j2], items[i2]
        items[:low] = orders[r](items)

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
