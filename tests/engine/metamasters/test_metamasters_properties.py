"""Property tests over many random MetaMasters games (Hypothesis picks seeds and probes)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.actions import Action
from engine.core.bots import RandomBot, play_match
from engine.core.errors import IllegalAction
from engine.core.game import get_game, new_match
from engine.core.prng import Prng
from engine.core.transcript import replay
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.moves import ACTION_ARITY
from engine.metamasters.state import FIELD_FACTS, Z_ACTOR, Z_LINK, Z_SPECIAL

GAME = get_game("metamasters")
DECKS = GAME.starter_decks
MAX_ACTIONS = 5000
#: every action kind, and one the rules do not know
_KINDS = (*ACTION_ARITY, "bogus")


def check_invariants(s: MetaMastersState) -> None:
    """The state's own invariants (`invariant_breaks`: every card in exactly one zone of its
    owner, three zones a row, Links on Actors, only Tokens as Tokens), and a card off the field
    keeps no field fact."""
    assert s.invariant_breaks() == []
    for i in range(len(s.cid)):
        if s.zone[i] not in (Z_ACTOR, Z_SPECIAL, Z_LINK):
            assert all(getattr(s, f)[i] == v for f, v in FIELD_FACTS.items()), (
                "off-field card kept field facts"
            )


def check_observation(s: MetaMastersState) -> None:
    """Neither player's observation shows the opponent's hand, deck order or face-down cards."""
    for viewer in (0, 1):
        obs = s.observation(viewer)
        opp = obs["players"][1 - viewer]
        assert (
            "hand" not in opp
            and isinstance(opp["hand_count"], int)
            and isinstance(opp["deck"], int)
        )
        for slot in opp["actors"] + opp["specials"]:
            if slot is not None and not slot["face_up"]:
                assert set(slot) <= {"id", "face_up", "position", "links"}
                assert isinstance(slot["id"], str)  # a place, never the instance id
        own = obs["players"][viewer]
        assert [h["id"] for h in own["hand"]] == s.hand[viewer]
        assert isinstance(own["deck"], int)


def probe(s: MetaMastersState, prng: Prng, legal: list[Action]) -> None:
    """A random action that is not legal is rejected with a rule id and changes nothing."""
    n = len(s.cid)
    kind = _KINDS[prng.below(len(_KINDS))]
    args = tuple(prng.below(n + 2) - 1 for _ in range(prng.below(3)))
    action = Action(kind, args)
    if action in legal:
        return
    before = s.state_hash()
    try:
        s.apply(action)
    except IllegalAction as exc:
        assert exc.rule.startswith("metamasters.")
        assert s.state_hash() == before
    else:  # pragma: no cover - a failure
        raise AssertionError(f"illegal {action} was applied")


def play_checked(seed: int, every: int) -> tuple[MetaMastersState, list[Action]]:
    """Play a random game, checking invariants after every action and deeper ones every `every`."""
    s = new_match("metamasters", DECKS, seed)
    assert isinstance(s, MetaMastersState)
    bots = (RandomBot(2 * seed + 1), RandomBot(2 * seed + 2))
    prng = Prng(seed + 99)
    actions: list[Action] = []
    while not s.is_over:
        assert len(actions) < MAX_ACTIONS, "the match did not end"
        legal = s.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if len(actions) % every == 0:
            check_observation(s)
            probe(s, prng, legal)
            twin = MetaMastersState.from_json(s.to_json())
            assert twin.state_hash() == s.state_hash() == s.clone().state_hash()
            assert twin.legal_actions() == legal
        action = bots[s.current_player].choose(s)
        actions.append(action)
        s.apply(action)
        check_invariants(s)
    assert s.winner in (0, 1) and s.legal_actions() == []
    return s, actions


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_random_games_keep_the_invariants(seed: int) -> None:
    play_checked(seed, every=7)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), cut=st.floats(min_value=0.0, max_value=1.0))
def test_clone_and_json_continue_identically(seed: int, cut: float) -> None:
    final, actions = play_checked(seed, every=50)
    k = int(len(actions) * cut)
    s = new_match("metamasters", DECKS, seed)
    for a in actions[:k]:
        s.apply(a)
    restored = MetaMastersState.from_json(s.to_json())
    copy = s.clone()
    for a in actions[k:]:
        s.apply(a)
    assert s.state_hash() == final.state_hash()
    for other in (restored, copy):
        for a in actions[k:]:
            other.apply(a)
        assert other.state_hash() == final.state_hash()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_replay_gives_identical_hashes(seed: int) -> None:
    state, transcript = play_match(GAME, DECKS, seed, (RandomBot(seed + 1), RandomBot(seed + 2)))
    result = replay(transcript.to_json())
    assert result.final_hash == state.state_hash() == transcript.final_hash
    assert result.winner == state.winner is not None


@pytest.mark.slow
def test_thousands_of_games_end_and_conserve_cards() -> None:
    outcomes: dict[Any, int] = {}
    total = sum(DECKS[0].values()) + sum(DECKS[1].values())
    for seed in range(2000):
        s = new_match("metamasters", DECKS, seed)
        assert isinstance(s, MetaMastersState)
        bots = (RandomBot(2 * seed + 1), RandomBot(2 * seed + 2))
        n = 0
        while not s.is_over:
            n += 1
            assert n < MAX_ACTIONS
            s.apply(bots[s.current_player].choose(s))
        assert len(s.zone) == total
        check_invariants(s)
        reason = "tokens" if not all(s.tokens) else "deck-out"
        outcomes[reason] = outcomes.get(reason, 0) + 1
    assert set(outcomes) == {"tokens", "deck-out"}


def _accepted(s: MetaMastersState, action: Action) -> bool:
    try:
        s.clone().apply(action)
    except IllegalAction:
        return False
    return True


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_legal_actions_are_exactly_the_accepted_ones(seed: int) -> None:
    s = new_match("metamasters", DECKS, seed)
    assert isinstance(s, MetaMastersState)
    bots = (RandomBot(seed), RandomBot(seed + 1))
    step = 0
    while not s.is_over:
        if step % 11 == 0:
            n = len(s.cid)
            field = [i for i in range(n) if s.zone[i] == Z_ACTOR]
            candidates = [Action(k) for k in ("next", "pass")]
            for k in ("play", "set", "activate", "flip", "position", "direct", "target"):
                candidates += [Action(k, (i,)) for i in range(n)]
            for k in ("play", "set", "link", "attack"):
                candidates += [Action(k, (i, t)) for i in range(n) for t in field]
            accepted = {a for a in candidates if _accepted(s, a)}
            assert accepted == set(s.legal_actions())
        s.apply(bots[s.current_player].choose(s))
        step += 1
