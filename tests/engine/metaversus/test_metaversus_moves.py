"""MetaVersus WISH: odd actions, the reshuffle, and whole matches between bots."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import Action, IllegalAction, get_game
from engine.core.bots import Bot, GreedyBot, RandomBot, play_match
from engine.core.prng import Prng
from engine.metaversus.encoding import WishState
from engine.metaversus.position import from_position

GAME = get_game("metaversus")
ALL = dict(GAME.starter_decks[0])


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        (Action("play", (0,)), "metaversus.action.malformed"),
        (Action("play", (0, 2)), "metaversus.action.malformed"),
        (Action("buy", ()), "metaversus.action.malformed"),
        (Action("buy", (99,)), "metaversus.buy.no-slot"),
        (Action("buy", (-1,)), "metaversus.buy.no-slot"),
    ],
)
def test_malformed_actions_name_a_rule(action: Action, rule: str) -> None:
    s = from_position({"characters": ["pack-knight", "pack-witch"], "phase": "buy"})
    before = s.state_hash()
    with pytest.raises(IllegalAction) as exc:
        s.apply(action)
    assert exc.value.rule == rule
    assert s.state_hash() == before


def test_shuffle_is_a_uniform_deterministic_permutation() -> None:
    rng = Prng(11)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 24
    # each of the 24 orders expects 1000; 6 standard deviations is ~190
    assert all(800 < n < 1200 for n in counts.values())
    a, b = list(range(40)), list(range(40))
    Prng(3).shuffle(a)
    Prng(3).shuffle(b)
    assert a == b and sorted(a) == list(range(40)) and a != list(range(40))


def test_greedy_bot_beats_random_and_games_end_by_hp() -> None:
    wins = 0
    for seed in range(6):
        greedy: Bot = GreedyBot(GAME)
        rand: Bot = RandomBot(seed)
        bots = [greedy, rand] if seed % 2 == 0 else [rand, greedy]
        state, _ = play_match("metaversus", GAME.starter_decks, seed, bots)
        assert isinstance(state, WishState)
        wins += state.winner == seed % 2
        assert state.zero and state.turn < 100
    assert wins == 6
