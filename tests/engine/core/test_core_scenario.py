"""The scenario runner: expectations, rejections, malformed files."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.errors import ScenarioError
from engine.core.scenario import compare, run_scenario

POSITION: dict[str, Any] = {
    "turn": 3,
    "active": 0,
    "step": "planning",
    "players": [
        {"mp": 2, "deck": ["B-STR-1", "B-STR-2"], "hand": [{"card": "EV-002", "id": 5}]},
        {"mp": 0, "deck": ["B-STR-1"]},
    ],
}


def scenario(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "metaledger.scenario/1",
        "game": "metax",
        "position": POSITION,
        "actions": [],
    }
    base.update(kw)
    return base


def test_compare_is_a_recursive_subset_match() -> None:
    view = {"a": 1, "b": {"c": [1, {"d": 2, "e": 3}]}, "f": None}
    assert compare({"b": {"c": [1, {"d": 2}]}}, view) == []
    assert compare({"a": 2}, view) == ["a: expected 2, got 1"]
    assert compare({"z": 1}, view) == ["z: missing in the state view"]
    assert compare({"b": {"c": [1]}}, view)
    assert compare({"f": False}, view)


def test_passing_and_failing_scenarios() -> None:
    ok = run_scenario(
        scenario(actions=[["play_event", 5]], expect={"players": [{"mp": 0, "hand_count": 2}, {}]})
    )
    assert ok.passed, ok.report()
    bad = run_scenario(
        scenario(actions=[["play_event", 5]], expect={"players": [{"mp": 1}, {}]}), "bad"
    )
    assert not bad.passed and bad.failures == ["players.0.mp: expected 1, got 0"]
    assert bad.report().startswith("FAIL bad")


def test_rejection_expectations() -> None:
    ok = run_scenario(
        scenario(
            actions=[{"action": ["play_character", 5], "rejected": "metax.planning.wrong-kind"}]
        )
    )
    assert ok.passed, ok.report()
    wrong_rule = run_scenario(
        scenario(actions=[{"action": ["play_character", 5], "rejected": "metax.x"}])
    )
    assert not wrong_rule.passed and "metax.planning.wrong-kind" in wrong_rule.failures[0]
    not_rejected = run_scenario(
        scenario(actions=[{"action": ["play_event", 5], "rejected": "metax.x"}])
    )
    assert not not_rejected.passed and "applied" in not_rejected.failures[0]
    illegal = run_scenario(scenario(actions=[["play_character", 5]]))
    assert not illegal.passed and "rejected by 'metax.planning.wrong-kind'" in illegal.failures[0]


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"format": "metaledger.scenario/2"},
        scenario(extra=1),
        scenario(game=3),
        scenario(position=[]),
        scenario(actions={}),
        scenario(actions=[{"act": 1}]),
        scenario(actions=[["x", "y"]]),
        scenario(position={"players": [{}]}),
        scenario(position={"players": [{"deck": ["NOPE"]}, {}]}),
    ],
)
def test_malformed_scenarios(data: Any) -> None:
    with pytest.raises(ScenarioError):
        run_scenario(data)
