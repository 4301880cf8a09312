"""Transcripts: record, serialise, replay bit for bit, and stop at the first divergence."""

from __future__ import annotations

import copy
import json

import pytest

from engine.core.bots import RandomBot, play_match
from engine.core.errors import ReplayDiverged, ReplayRejected, TranscriptError
from engine.core.game import get_game
from engine.core.transcript import TRANSCRIPT_FORMAT, Transcript, replay


@pytest.fixture(scope="module")
def recorded() -> Transcript:
    g = get_game("metax")
    _, t = play_match(g, g.starter_decks, 11, (RandomBot(1), RandomBot(2)), every=16)
    return t


def test_round_trip_and_replay(recorded: Transcript) -> None:
    data = json.loads(json.dumps(recorded.to_json()))
    assert data["format"] == TRANSCRIPT_FORMAT and data["seed"] == "0xb"
    assert (
        data["checkpoints"]["every"] == 16
        and len(data["checkpoints"]["hashes"]) == len(data["actions"]) // 16
    )
    assert Transcript.from_json(data).to_json() == recorded.to_json()
    result = replay(data)
    assert result.final_hash == recorded.final_hash
    assert result.winner == recorded.winner and result.over
    assert result.actions == len(recorded.actions)
    assert Transcript.from_json(data).canonical_bytes() == recorded.canonical_bytes()


def test_tampered_checkpoint_names_the_action(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["checkpoints"]["hashes"][1] = "0" * 64
    with pytest.raises(ReplayDiverged) as err:
        replay(data)
    assert err.value.index == 32


def test_tampered_final_hash_and_winner(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["final_hash"] = "f" * 64
    with pytest.raises(ReplayDiverged):
        replay(data)
    data = copy.deepcopy(recorded.to_json())
    data["winner"] = 1 - recorded.winner if recorded.winner is not None else 0
    with pytest.raises(ReplayDiverged):
        replay(data)


def test_illegal_action_names_index_and_rule(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["actions"][3] = ["play_character", 9999]
    with pytest.raises(ReplayRejected) as err:
        replay(data)
    assert err.value.index == 3 and err.value.rule.startswith("metax.")


def test_action_after_the_end_is_rejected(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["actions"].append(["end_planning"])
    with pytest.raises(ReplayRejected) as err:
        replay(data)
    assert err.value.rule == "metax.flow.game-over" and err.value.index == len(recorded.actions)


def test_a_changed_seed_diverges(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["seed"] = "0xc"
    with pytest.raises((ReplayDiverged, ReplayRejected)):
        replay(data)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("format", "x", "format"),
        ("seed", "zz", "hex"),
        ("decks", [{}], "two objects"),
        ("actions", [[1]], "action 0"),
        ("checkpoints", {"every": 0, "hashes": []}, "checkpoints"),
        ("winner", 3, "winner"),
        ("ruleset_version", "metax/0", "ruleset"),
        ("catalogue_hash", "00", "catalogue hash"),
        ("engine_version", "0.0.1", "engine version"),
    ],
)
def test_malformed_or_foreign_transcripts(
    recorded: Transcript, field: str, value: object, message: str
) -> None:
    data = copy.deepcopy(recorded.to_json())
    data[field] = value
    with pytest.raises(TranscriptError, match=message):
        replay(data)


def test_replay_shows_the_state_before_each_action(recorded: Transcript) -> None:
    g = get_game("metax")
    state = g.new_match(
        (recorded.decks[0], recorded.decks[1]),
        recorded.seed,
        {**g.ruleset(recorded.ruleset_version).default_options, **recorded.options},
        recorded.ruleset_version,
    )
    expected = []
    for action in recorded.actions:
        expected.append((state.current_player, state.state_hash()))
        state.apply_actions([action], 0, 1)
    seen: list[tuple[int, str]] = []
    result = replay(
        recorded.to_json(),
        before_each=lambda k, s: seen.append((s.current_player, s.state_hash())),
    )
    assert seen == expected  # every action once, in order, before it is applied
    assert result.final_hash == replay(recorded.to_json()).final_hash == recorded.final_hash


def test_replay_with_a_visitor_stops_where_the_rules_do(recorded: Transcript) -> None:
    data = copy.deepcopy(recorded.to_json())
    data["actions"][20] = ["no-such-action"]
    visited: list[int] = []
    with pytest.raises(ReplayRejected) as rejected:
        replay(data, before_each=lambda k, _s: visited.append(k))
    assert rejected.value.index == 20 and visited == list(range(21))
