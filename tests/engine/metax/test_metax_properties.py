"""Property tests over many random MetaX games (Hypothesis).

By default a few hundred games run (a few seconds); set METALEDGER_SLOW_TESTS=1 for the
thousands-of-games run.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.bots import RandomBot
from engine.core.game import get_game
from engine.core.transcript import Recorder, replay
from engine.metax.encoding import MetaXState

SLOW = os.environ.get("METALEDGER_SLOW_TESTS") == "1"
EXAMPLES = 5000 if SLOW else 600
PROFILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


def _check_round_trips(state: MetaXState) -> None:
    h = state.state_hash()
    clone = state.clone()
    assert clone.state_hash() == h
    again = MetaXState.from_json(json.loads(json.dumps(state.to_json())))
    assert again.state_hash() == h
    assert again.legal_actions() == state.legal_actions()
    # the clone is independent: moving it on leaves the original untouched
    clone.apply(clone.legal_actions()[-1])
    assert state.state_hash() == h


@pytest.mark.slow
@PROFILE
@given(
    seed=st.integers(0, 2**256 - 1),
    bot0=st.integers(0, 2**32),
    bot1=st.integers(0, 2**32),
    swap=st.booleans(),
    check_every=st.integers(7, 40),
)
def test_random_games_keep_every_invariant(
    seed: int, bot0: int, bot1: int, swap: bool, check_every: int
) -> None:
    g = get_game("metax")
    decks = g.starter_decks[::-1] if swap else g.starter_decks
    rec = Recorder("metax", (decks[0], decks[1]), seed, None, every=16)
    state = rec.state
    assert isinstance(state, MetaXState)
    total = state.card_count()
    assert total == 80 and state.mp == [0, 0]
    bots = (RandomBot(bot0), RandomBot(bot1))
    n = 0
    while not state.is_over:
        actions = state.legal_actions()
        assert actions, "a running match always has a legal action"
        rec.apply(bots[state.current_player].choose(state))
        n += 1
        assert 0 <= state.mp[0] <= 10 and 0 <= state.mp[1] <= 10
        assert sum(1 for c in state.chars[0] if c >= 0) <= 3
        assert sum(1 for c in state.chars[1] if c >= 0) <= 3
        assert state.card_count() == total
        if n % check_every == 0 and not state.is_over:
            _check_round_trips(state)
        assert n < 5000, "the match must end"
    assert state.winner in (0, 1)
    assert state.legal_actions() == []
    t = rec.finish()
    result = replay(json.loads(json.dumps(t.to_json())))
    assert result.final_hash == t.final_hash == state.state_hash()
    assert result.winner == state.winner
