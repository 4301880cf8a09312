"""The engine's only source of randomness: xoshiro256** seeded through SplitMix64.

Pure Python, no `random` module. Same seed, same stream, on every platform.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
#: rejection thresholds ((2**64 - n) % n) for small bounds, precomputed
_THRESHOLDS = [0] + [((1 << 64) - n) % n for n in range(1, 257)]


def _splitmix64(x: int) -> tuple[int, int]:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
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
        state = []
        for _ in range(4):
            x, z = _splitmix64(x)
            state.append(z)
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
        """Shuffle a list in place (Fisher-Yates, drawing from the end).

        Same stream as calling `below(i + 1)` for i = len-1 .. 1, with the generator inlined.
        """
        s = self._s
        s0, s1, s2, s3 = s
        m = _MASK64
        thresholds = _THRESHOLDS
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            threshold = thresholds[n] if n <= 256 else ((1 << 64) - n) % n
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
                if r >= threshold:
                    break
            j = r % n
            items[i], items[j] = items[j], items[i]
        s[0], s[1], s[2], s[3] = s0, s1, s2, s3

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
