"""Forfeits (resign, timeout) in transcripts: replay gives the other player the win, and refuses
a forfeit the rules could not have allowed."""

from __future__ import annotations

import pytest

from engine.core.bots import RandomBot
from engine.core.errors import ReplayDiverged, TranscriptError
from engine.core.game import get_game
from engine.core.transcript import Recorder, Transcript, replay


def _recorder_after(game: str, actions: int, seed: int = 11) -> Recorder:
    g = get_game(game)
    rec = Recorder(game, g.starter_decks, seed)
    bot = RandomBot(seed)
    for _ in range(actions):
        if rec.state.is_over:
            break
        rec.apply(bot.choose(rec.state))
    assert not rec.state.is_over
    return rec


@pytest.mark.parametrize("game", ["metax", "metamasters", "metaversus"])
@pytest.mark.parametrize("reason", ["resign", "timeout"])
def test_a_forfeit_replays_to_the_other_players_win(game: str, reason: str) -> None:
    rec = _recorder_after(game, 25)
    loser = rec.state.current_player
    t = rec.finish(forfeit=(loser, reason))
    assert (t.over, t.winner, t.forfeit) == (True, 1 - loser, {"player": loser, "reason": reason})
    outcome = replay(Transcript.from_json(t.to_json()))
    assert (outcome.over, outcome.winner, outcome.end_reason) == (True, 1 - loser, reason)
    assert not outcome.state.is_over, "the rules did not end the match; the forfeit did"


def test_a_resign_by_the_waiting_player_is_allowed_but_a_timeout_is_not() -> None:
    rec = _recorder_after("metax", 25)
    waiting = 1 - rec.state.current_player
    assert replay(rec.finish(forfeit=(waiting, "resign"))).winner == 1 - waiting
    with pytest.raises(TranscriptError, match=f"player {waiting} cannot time out"):
        rec.finish(forfeit=(waiting, "timeout"))
    data = rec.finish(forfeit=(waiting, "resign")).to_json()
    data["forfeit"]["reason"] = "timeout"
    with pytest.raises(TranscriptError, match=f"player {waiting} cannot time out"):
        replay(data)


def test_no_forfeit_after_the_rules_ended_the_match() -> None:
    g = get_game("metax")
    rec = Recorder("metax", g.starter_decks, 3)
    bot = RandomBot(3)
    while not rec.state.is_over:
        rec.apply(bot.choose(rec.state))
    with pytest.raises(TranscriptError, match="nothing to forfeit"):
        rec.finish(forfeit=(0, "resign"))
    data = rec.finish().to_json()
    data["forfeit"] = {"player": 0, "reason": "resign"}
    with pytest.raises(TranscriptError, match="nothing to forfeit"):
        replay(data)


def test_a_changed_forfeit_is_caught() -> None:
    rec = _recorder_after("metaversus", 30)
    loser = rec.state.current_player
    data = rec.finish(forfeit=(loser, "resign")).to_json()
    data["forfeit"]["player"] = 1 - loser
    with pytest.raises(ReplayDiverged, match="winner"):
        replay(data)


@pytest.mark.parametrize(
    "forfeit",
    [
        {"player": 2, "reason": "resign"},
        {"player": 0, "reason": "bored"},
        {"player": True, "reason": "resign"},
        {"player": 0},
    ],
)
def test_a_malformed_forfeit_is_named(forfeit: object) -> None:
    data = _recorder_after("metax", 10).finish().to_json()
    data["forfeit"] = forfeit
    with pytest.raises(TranscriptError, match="transcript forfeit must be"):
        Transcript.from_json(data)
