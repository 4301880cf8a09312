"""What every game's `determinize` shares: piles dealt in an order drawn from the PRNG alone, and
cards drawn from a prior, few generator calls per card."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from engine.core.prng import Prng

T = TypeVar("T")

#: n -> (k, n**k): the most base-n digits one unbiased draw below 2**64 gives
_DIGITS: dict[int, tuple[int, int]] = {}


def dealt(items: Sequence[int], prng: Prng) -> list[int]:
    """The items in an order drawn from `prng` alone: sorted first, so the result does not
    depend on the order they came in (a hidden order must not leak into a sample)."""
    out = sorted(items)
    prng.shuffle(out)
    return out


def picks(prng: Prng, choices: Sequence[T], count: int) -> list[T]:
    """`count` independent uniform picks among `choices` (unbiased: the base-n digits of one
    uniform draw below n**k, k digits per generator call)."""
    n = len(choices)
    if count <= 0:
        return []
    if n == 1:
        return [choices[0]] * count
    k, span = _DIGITS.get(n) or _digits(n)
    out: list[T] = []
    while len(out) < count:
        r = prng.below(span)
        for _ in range(min(k, count - len(out))):
            r, d = divmod(r, n)
            out.append(choices[d])
    return out


def _digits(n: int) -> tuple[int, int]:
    k = 1
    while n ** (k + 1) <= 1 << 64:
        k += 1
    _DIGITS[n] = (k, n**k)
    return k, n**k
