"""Bots and play_match, for every registered game that is built."""

from __future__ import annotations

import pytest

from engine.core.bots import GreedyBot, RandomBot, make_bot, play_match
from engine.core.errors import EngineError
from engine.core.game import get_game


def test_random_bot_is_seeded_and_deterministic() -> None:
    g = get_game("metax")
    _, a = play_match(g, g.starter_decks, 3, (RandomBot(10), RandomBot(11)))
    _, b = play_match("metax", g.starter_decks, 3, (RandomBot(10), RandomBot(11)))
    assert a.actions == b.actions and a.final_hash == b.final_hash
    _, c = play_match(g, g.starter_decks, 3, (RandomBot(12), RandomBot(11)))
    assert c.actions != a.actions


def test_greedy_bot_plays_a_whole_match_deterministically() -> None:
    g = get_game("metax")
    s1, t1 = play_match(g, g.starter_decks, 4, (GreedyBot(g), RandomBot(1)))
    _, t2 = play_match(g, g.starter_decks, 4, (GreedyBot(g), RandomBot(1)))
    assert s1.is_over and t1.actions == t2.actions


def test_greedy_avoids_an_immediate_loss_and_takes_a_win() -> None:
    g = get_game("metax")
    position = {
        "turn": 5,
        "active": 0,
        "step": "attacks",
        "players": [
            {
                "mp": 5,
                "hand": [{"card": "B-STR-1", "id": 10}],
                "vp": ["B-INT-1"] * 6,
                "characters": [{"card": "JL-001", "id": 1}],
            },
            {
                "mp": 5,
                "hand": [{"card": "B-STR-2", "id": 30}],
                "characters": [{"card": "GL-002", "id": 20}],
                "deck": ["B-INT-2"] * 5,
            },
        ],
    }
    state = g.from_position(position)
    attacker = GreedyBot(g)
    assert attacker.choose(state).kind == "attack"
    state.apply(attacker.choose(state))
    state.apply(attacker.choose(state))  # end_attacks
    defender = GreedyBot(g)
    # not defending loses at once (7th VP); the greedy bot defends
    assert defender.choose(state).kind == "defend"


def test_make_bot_names() -> None:
    g = get_game("metax")
    assert isinstance(make_bot("random", g, 1), RandomBot)
    assert isinstance(make_bot("greedy", g, 1), GreedyBot)
    with pytest.raises(EngineError, match="unknown bot"):
        make_bot("smart", g, 1)


def test_greedy_beats_random_on_mirrored_decks() -> None:
    g = get_game("metax")
    wins = games = 0
    for deck in g.starter_decks:
        for seed in range(5):
            _, t = play_match(g, (deck, deck), seed, (GreedyBot(g), RandomBot(seed)))
            wins += t.winner == 0
            _, t = play_match(g, (deck, deck), seed, (RandomBot(seed), GreedyBot(g)))
            wins += t.winner == 1
            games += 2
    assert wins >= 0.6 * games, f"greedy won {wins} of {games}"
