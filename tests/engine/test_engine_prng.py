"""The engine PRNG: deterministic, unbiased ranges, serialisable, wide seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core.prng import Prng


def test_same_seed_same_stream() -> None:
    a, b = Prng(42), Prng(42)
    assert [a.next_u64() for _ in range(20)] == [b.next_u64() for _ in range(20)]
    assert Prng(1).next_u64() != Prng(2).next_u64()


def test_known_first_outputs_are_stable() -> None:
    # pinned values: a change here changes every recorded transcript
    p = Prng(7)
    assert [p.below(1000) for _ in range(5)] == [728, 179, 848, 539, 686]
    assert Prng(0).next_u64() == 0x422EA740D0977210


def test_below_is_in_range_and_roughly_uniform() -> None:
    p = Prng(3)
    counts = Counter(p.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_000 < c < 11_000 for c in counts.values())
    with pytest.raises(ValueError):
        p.below(0)


def test_shuffle_matches_below_sequence_and_is_a_permutation() -> None:
    for seed in range(20):
        a, b = Prng(seed), Prng(seed)
        items = list(range(40))
        a.shuffle(items)
        ref = list(range(40))
        for i in range(len(ref) - 1, 0, -1):
            j = b.below(i + 1)
            ref[i], ref[j] = ref[j], ref[i]
        assert items == ref
        assert sorted(items) == list(range(40))
        assert a.get_state() == b.get_state()


def test_state_round_trip_and_clone() -> None:
    p = Prng(99)
    p.below(10)
    q = Prng.from_state(p.get_state())
    c = p.clone()
    assert [p.next_u64() for _ in range(5)] == [q.next_u64() for _ in range(5)] == [c.next_u64() for _ in range(5)]


def test_wide_seeds_differ_and_negative_rejected() -> None:
    assert Prng(2**200 + 1).next_u64() != Prng(1).next_u64()
    assert Prng(2**255).next_u64() != Prng(2**254).next_u64()
    with pytest.raises(ValueError):
        Prng(-1)
