"""MetaX state: observation hides hidden information; apply is atomic and agrees with legal_actions."""

from __future__ import annotations

import json

from engine.core.actions import Action
from engine.core.bots import RandomBot
from engine.core.errors import IllegalAction
from engine.core.game import get_game, new_match
from engine.core.state import TERMINAL
from engine.metax.encoding import MetaXState


def _midgame(seed: int = 9, steps: int = 60) -> MetaXState:
    g = get_game("metax")
    state = new_match("metax", g.starter_decks, seed)
    assert isinstance(state, MetaXState)
    bots = (RandomBot(1), RandomBot(2))
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(bots[state.current_player].choose(state))
    return state


def test_start_of_match() -> None:
    g = get_game("metax")
    state = new_match("metax", g.starter_decks, 5)
    assert isinstance(state, MetaXState)
    assert [len(h) for h in state.hands] == [5, 5] and [len(d) for d in state.decks] == [35, 35]
    assert state.mp == [0, 0] and not state.is_over and state.winner is None
    assert [a.to_json() for a in state.legal_actions()] == [
        ["first_player", 0],
        ["first_player", 1],
    ]
    # the toss winner is drawn from the seed
    tossers = {new_match("metax", g.starter_decks, s).current_player for s in range(20)}
    assert tossers == {0, 1}


def test_observation_hides_opponent_hand_and_deck_order() -> None:
    state = _midgame()
    for player in (0, 1):
        obs = state.observation(player)
        text = json.dumps(obs)
        me, opp = obs["players"][player], obs["players"][1 - player]
        assert me["hand"] is not None and opp["hand"] is None
        assert opp["hand_count"] == len(state.hands[1 - player])
        assert (
            "deck" not in me and "deck" not in opp and me["deck_count"] == len(state.decks[player])
        )
        assert "vp" not in me and me["vp_count"] == len(state.vps[player])
        assert '"decks"' not in text and '"prng"' not in text


def test_observation_is_the_same_whatever_the_hidden_order() -> None:
    state = _midgame()
    other = state.clone()
    other.decks[0].reverse()
    other.decks[1].reverse()
    other.hands[1 - state.current_player].reverse()
    p = state.current_player
    if p != TERMINAL:
        obs_a, obs_b = state.observation(p), other.observation(p)
        obs_a.pop("legal_actions", None)
        obs_b.pop("legal_actions", None)
        assert obs_a == obs_b


def test_every_legal_action_applies_and_illegal_ones_change_nothing() -> None:
    for seed in range(30):
        state = _midgame(seed, steps=seed * 3)
        if state.is_over:
            continue
        for action in state.legal_actions():
            state.clone().apply(action)
        before = state.state_hash()
        for bad in (
            Action("play_character", (999,)),
            Action("attack", (0, 1)),
            Action("defend", (0, 1, 2)),
            Action("choose", (12345,)),
            Action("resolve", (7,)),
            Action("first_player", (5,)),
            Action("keep"),
            Action("bottom", (-3,)),
            Action("team_attack", (0, 1, 9, 2)),
        ):
            if bad in state.legal_actions():
                continue
            try:
                state.apply(bad)
            except IllegalAction as exc:
                assert exc.rule.startswith("metax.")
            else:
                raise AssertionError(f"{bad} was accepted")
            assert state.state_hash() == before


def test_labels_are_readable() -> None:
    state = _midgame(3, steps=20)
    for action in state.legal_actions():
        label = state.label(action)
        assert label and "[" not in label
