"""The match state cache of an API process: bounded, least recently used first out, one state
per match (the latest version put), and `take` hands a state over (nobody else gets the same
object)."""

from __future__ import annotations

from typing import Any, cast

from engine import GameState
from ledger.runtime.context import StateCache


def _state(name: str) -> GameState:
    return cast(GameState, name)  # the cache never looks inside a state


def test_the_least_recently_used_state_goes_first() -> None:
    cache = StateCache(2)
    cache.put("m1", 0, _state("a"))
    cache.put("m2", 0, _state("b"))
    assert cache.peek("m1", 0) == "a"  # m1 is now the most recent
    cache.put("m3", 0, _state("c"))
    assert len(cache) == 2 and cache.peek("m2", 0) is None
    assert cache.peek("m1", 0) == "a" and cache.peek("m3", 0) == "c"


def test_take_removes_and_versions_differ() -> None:
    cache = StateCache(4)
    cache.put("m1", 3, _state("v3"))
    assert cache.peek("m1", 4) is None and cache.peek("m1", 3) == "v3"
    taken: Any = cache.take("m1")
    assert taken == (3, "v3") and cache.take("m1") is None


def test_the_latest_version_of_a_match_stays() -> None:
    cache = StateCache(4)
    cache.put("m1", 5, _state("v5"))
    cache.put("m1", 4, _state("v4"))  # an older state put back late is not kept
    assert cache.peek("m1", 5) == "v5" and len(cache) == 1
    cache.put("m1", 6, _state("v6"))
    assert cache.peek("m1", 5) is None and cache.take("m1") == (6, "v6")


def test_a_cache_of_size_zero_keeps_nothing() -> None:
    cache = StateCache(0)
    cache.put("m1", 0, _state("a"))
    assert len(cache) == 0 and cache.peek("m1", 0) is None
