"""Property tests over many random MetaVersus WISH games."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Action, IllegalAction, get_game, new_match
from engine.core.bots import RandomBot, make_bot, play_match
from engine.core.prng import Prng
from engine.core.transcript import replay
from engine.metaversus.cards import CARDS
from engine.metaversus.encoding import WishState
from engine.metaversus.position import total_cards
from engine.metaversus.state import MAX_STARS, SETUP

GAME = get_game("metaversus")
ALL = dict(GAME.starter_decks[0])
VARIANTS: list[tuple[dict[str, int], dict[str, int], dict[str, object]]] = [
    (ALL, ALL, {}),
    (ALL, ALL, {"first_match": 1}),
    (
        {"pack-knight": 1, "pack-merchant": 1},
        {"pack-merchant": 1},
        {"selection": "difficulty", "difficulty": "easy"},
    ),
    ({"pack-witch": 1, "pack-dragon": 1}, {"pack-thief": 1}, {"selection": "random"}),
    ({"pack-thief": 1}, {"pack-dragon": 1}, {"selection": "free"}),
    ({"pack-merchant": 1}, {"pack-witch": 1}, {"selection": "free", "max_rounds": 3}),
]
MAX_ACTIONS = 20_000
#: candidate actions for the "apply agrees with legal_actions" check
_KINDS = (
    "play",
    "buy",
    "next",
    "wish",
    "skill",
    "decline",
    "select",
    "gain",
    "ban",
    "noban",
    "choose",
    "pick",
)


def _candidates(s: WishState, rng: Prng) -> list[Action]:
    out = []
    for _ in range(6):
        kind = _KINDS[rng.below(len(_KINDS))]
        if kind == "play":
            out.append(Action(kind, (rng.below(CARDS.n), rng.below(2))))
        elif kind in ("buy", "gain"):
            out.append(Action(kind, (rng.below(len(s.m_card) + 1),)))
        elif kind in ("select", "ban", "choose", "pick"):
            out.append(Action(kind, (rng.below(CARDS.n),)))
        else:
            out.append(Action(kind))
    return out


def _check_invariants(s: WishState, cards: int | None) -> int | None:
    assert all(0 <= n <= MAX_STARS for n in s.stars)
    assert all(n >= 0 for n in s.m_stock)
    assert s.ap >= 0 and s.gems >= 0 and s.buys >= 0
    if s.phase == SETUP:
        return None
    total = total_cards(s)
    if cards is not None:
        assert total == cards, "card count not conserved"
    return total


def _random_game(variant: int, seed: int, bot_seed: int, deep: bool) -> WishState:
    d0, d1, options = VARIANTS[variant]
    s = new_match("metaversus", (d0, d1), seed, options)
    assert isinstance(s, WishState)
    rng = Prng(bot_seed)
    cards: int | None = None
    for n in range(MAX_ACTIONS):
        if s.is_over:
            break
        legal = s.legal_actions()
        assert legal, "a running match always has a legal action"
        if deep and n % 7 == 0:
            before = s.state_hash()
            assert s.clone().state_hash() == before
            restored = WishState.from_json(json.loads(json.dumps(s.to_json())))
            assert restored.state_hash() == before
            assert restored.legal_actions() == legal
            for cand in _candidates(s, rng):
                if cand in legal:
                    continue
                try:
                    s.clone().apply(cand)
                except IllegalAction as exc:
                    assert exc.rule.startswith("metaversus.")
                else:
                    raise AssertionError(f"{cand} applied but is not in legal_actions")
            json.dumps(s.observation(0))
            json.dumps(s.observation(1))
        s.apply(legal[rng.below(len(legal))])
        cards = _check_invariants(s, cards)
    else:
        raise AssertionError("the match did not end")
    # a winner, or the engine's safety cap (a draw) for a match that ran that long
    assert s.winner in (0, 1) or (s.ended_by_engine_limit and s.turn >= 2 * s.max_rounds)
    assert s.legal_actions() == []
    return s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.integers(0, len(VARIANTS) - 1),
    seed=st.integers(0, 2**256 - 1),
    bot_seed=st.integers(0, 2**32),
)
def test_random_games_deep(variant: int, seed: int, bot_seed: int) -> None:
    """Each game ends; stars 0..3; stock >= 0; cards conserved; clone/json identical; apply agrees with legal_actions."""
    _random_game(variant, seed, bot_seed, deep=True)


def test_two_thousand_random_games() -> None:
    """Thousands of random games end with the invariants holding at every step."""
    lengths = []
    for i in range(2000):
        s = _random_game(i % len(VARIANTS), i, i * 7919 + 1, deep=False)
        lengths.append(s.turn)
    assert max(lengths) <= 2 * GAME.default_options["max_rounds"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64), bots=st.integers(0, 2**32))
def test_replay_gives_identical_hashes(seed: int, bots: int) -> None:
    """A recorded match replays to the same final hash and winner, via the transcript JSON."""
    state, transcript = play_match(
        "metaversus", GAME.starter_decks, seed, [RandomBot(bots), RandomBot(bots + 1)]
    )
    data = json.loads(json.dumps(transcript.to_json()))
    result = replay(data)
    assert result.final_hash == state.state_hash() == transcript.final_hash
    assert result.winner == state.winner
    again = play_match(
        "metaversus", GAME.starter_decks, seed, [RandomBot(bots), RandomBot(bots + 1)]
    )[0]
    assert again.state_hash() == state.state_hash()


@pytest.mark.parametrize(("bot", "matches"), [("random", 400), ("greedy", 100)])
def test_bots_end_at_least_99_percent_of_matches_by_the_guide(bot: str, matches: int) -> None:
    """With the bots' preferences against stalling, the safety cap (a draw) is a rarity."""
    capped = 0
    for seed in range(matches):
        bots = (make_bot(bot, GAME, 2 * seed + 1), make_bot(bot, GAME, 2 * seed + 2))
        state, _ = play_match("metaversus", GAME.starter_decks, seed, bots)
        assert state.is_over
        capped += state.ended_by_engine_limit
        assert state.ended_by_engine_limit or state.winner in (0, 1)
    assert capped <= matches // 100, f"{capped} of {matches} matches reached the safety cap"
