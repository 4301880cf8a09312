"""Rulesets: every game plays its newest for new matches, still plays its older ones on request,
and replay picks the transcript's own ruleset (with the engine versions that recorded it)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from engine import (
    ENGINE_VERSION,
    Recorder,
    TranscriptError,
    UnknownRuleset,
    game_names,
    get_game,
    new_match,
    replay,
)
from engine.core.bots import RandomBot, play_match

V1 = Path(__file__).parents[2] / "fixtures" / "v1" / "transcripts"


@pytest.mark.parametrize("game", game_names())
def test_each_game_has_its_first_ruleset_and_a_newer_one(game: str) -> None:
    g = get_game(game)
    assert [r.revision for r in g.rulesets] == [1, 2]
    first, newest = g.rulesets
    assert g.ruleset() is newest and g.ruleset_version == newest.version
    assert g.catalogue_hash == newest.catalogue_hash
    assert g.starter_decks == newest.starter_decks and g.default_options == newest.default_options
    assert first.engine_versions == ("1.1.0",) and ENGINE_VERSION == "1.2.0"
    assert new_match(game, g.starter_decks, 3).rev == 2
    assert new_match(game, first.starter_decks, 3, ruleset=first.version).rev == 1
    with pytest.raises(UnknownRuleset, match="no ruleset"):
        g.ruleset("not-a-ruleset")


@pytest.mark.parametrize("game", game_names())
def test_a_match_of_the_first_ruleset_recorded_today_replays(game: str) -> None:
    g = get_game(game)
    first = g.rulesets[0]
    rec = Recorder(game, first.starter_decks, 5, ruleset=first.version)
    bots = (RandomBot(1), RandomBot(2))
    while not rec.state.is_over:
        rec.apply(bots[rec.state.current_player].choose(rec.state))
    t = rec.finish().to_json()
    assert (t["ruleset_version"], t["engine_version"]) == (first.version, ENGINE_VERSION)
    assert t["catalogue_hash"] == first.catalogue_hash
    assert replay(t).final_hash == t["final_hash"]


@pytest.mark.parametrize("game", game_names())
def test_replay_refuses_what_no_ruleset_of_this_engine_recorded(game: str) -> None:
    g = get_game(game)
    _, t = play_match(g, g.starter_decks, 4, (RandomBot(3), RandomBot(4)))
    data = t.to_json()
    assert data["ruleset_version"] == g.ruleset_version
    for field, value, message in (
        ("ruleset_version", "not-a-ruleset", "no ruleset"),
        ("engine_version", "1.1.0", "did not record ruleset"),
        ("catalogue_hash", "0" * 64, "catalogue of ruleset"),
    ):
        bad = copy.deepcopy(data)
        bad[field] = value
        with pytest.raises(TranscriptError, match=message):
            replay(bad)


def test_v1_transcripts_name_the_first_rulesets_and_replay_under_them() -> None:
    paths = sorted(V1.glob("*.json"))
    assert len(paths) == 9
    for path in paths:
        t = json.loads(path.read_text())
        first = get_game(t["game"]).rulesets[0]
        assert (t["ruleset_version"], t["engine_version"]) == (first.version, "1.1.0")
        result = replay(t)
        assert result.state.rev == 1 and result.final_hash == t["final_hash"]
        # the same match under the newest ruleset is another match
        newer = copy.deepcopy(t)
        newer["ruleset_version"] = get_game(t["game"]).ruleset_version
        with pytest.raises(TranscriptError):
            replay(newer)  # its engine version did not record the newest ruleset
