"""Scenarios: a whole position, a list of actions, and expectations (see docs/scenarios.md).

Format "metaledger.scenario/1"::

    {"format": "metaledger.scenario/1", "game": "metax", "description": "...",
     "rules": ["metax.battle.hp-ko"],            # optional: the rule ids it covers
     "ruleset": "metax/2018.06-1",               # optional: an older ruleset (default: newest)
     "position": {...},                          # game-specific, built by Game.from_position
     "actions": [
        ["attack", 1, 10],                       # applied; must be legal
        {"action": ["attack", 2, 11], "rejected": "metax.battle.stat"},   # must be rejected
        {"action": ["end_attacks"], "expect": {...}},   # applied, then checked
        {"expect": {...}}                        # a check between actions
     ],
     "expect": {...}}                            # checked at the end

Expectations are compared with `Game.scenario_view(state)`: every key given must be present
and equal; nested objects are compared the same way (keys not given are not checked); lists
and scalars must be equal. The runner is pure: callers read the file and pass the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.actions import Action
from engine.core.errors import EngineError, IllegalAction, ScenarioError
from engine.core.game import get_game
from engine.core.state import GameState

SCENARIO_FORMAT = "metaledger.scenario/1"


@dataclass
class ScenarioResult:
    """The outcome of one scenario: passed, or the list of failed expectations."""

    name: str
    passed: bool
    failures: list[str] = field(default_factory=list)
    state: GameState | None = field(default=None, repr=False)

    def report(self) -> str:
        """A short human-readable report."""
        if self.passed:
            return f"PASS {self.name}"
        return f"FAIL {self.name}: " + "; ".join(self.failures)


def compare(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Compare an expectation with a view; return one message per mismatch."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{path or '<root>'}: expected an object, got {actual!r}"]
        out: list[str] = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(f"{sub}: missing in the state view")
            else:
                out.extend(compare(value, actual[key], sub))
        return out
    if isinstance(expected, list) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return [f"{path}: expected {expected!r}, got {list(actual)!r}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out.extend(compare(e, a, f"{path}.{i}" if path else str(i)))
        return out
    if expected != actual or (type(expected) is bool and type(actual) is not bool):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def _action(raw: Any, where: str) -> Action:
    try:
        return Action.from_json(raw)
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def run_scenario(data: Any, name: str = "<scenario>") -> ScenarioResult:
    """Run a parsed scenario; ScenarioError if malformed, else a ScenarioResult."""
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{name}: a scenario is a JSON object")
    if data.get("format") != SCENARIO_FORMAT:
        raise ScenarioError(
            f"{name}: format must be {SCENARIO_FORMAT!r}, got {data.get('format')!r}"
        )
    unknown = set(data) - {
        "format",
        "game",
        "description",
        "rules",
        "ruleset",
        "position",
        "actions",
        "expect",
    }
    if unknown:
        raise ScenarioError(f"{name}: unknown field(s) {sorted(unknown)}")
    game_name = data.get("game")
    if not isinstance(game_name, str):
        raise ScenarioError(f"{name}: 'game' must be a string")
    position = data.get("position")
    if not isinstance(position, Mapping):
        raise ScenarioError(f"{name}: 'position' must be an object")
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError(f"{name}: 'actions' must be a list")
    game = get_game(game_name)
    ruleset = data.get("ruleset")
    if ruleset is not None and not isinstance(ruleset, str):
        raise ScenarioError(f"{name}: 'ruleset' must be a ruleset version string")
    try:
        revision = game.ruleset(ruleset).revision
    except EngineError as exc:
        raise ScenarioError(f"{name}: {exc}") from None
    try:
        state = game.from_position(position, revision)
    except (KeyError, ValueError, TypeError) as exc:
        raise ScenarioError(f"{name}: bad position: {exc}") from None
    failures: list[str] = []
    for i, entry in enumerate(actions):
        where = f"{name}: actions[{i}]"
        if isinstance(entry, list):
            entry = {"action": entry}
        if not isinstance(entry, Mapping) or not set(entry) <= {
            "action",
            "rejected",
            "expect",
            "note",
        }:
            raise ScenarioError(
                f"{where}: an entry is [kind, *args] or {{action, rejected?, expect?}}"
            )
        if "action" in entry:
            action = _action(entry["action"], where)
            rejected = entry.get("rejected")
            if rejected is not None:
                before = state.state_hash()
                try:
                    state.apply(action)
                except IllegalAction as exc:
                    if exc.rule != rejected:
                        failures.append(
                            f"actions[{i}] {entry['action']}: rejected by {exc.rule!r} ({exc.message}), expected {rejected!r}"
                        )
                    elif state.state_hash() != before:
                        failures.append(
                            f"actions[{i}] {entry['action']}: rejected but the state changed"
                        )
                else:
                    failures.append(
                        f"actions[{i}] {entry['action']}: applied, expected rejection by {rejected!r}"
                    )
                    break
            else:
                try:
                    state.apply(action)
                except IllegalAction as exc:
                    failures.append(
                        f"actions[{i}] {entry['action']}: rejected by {exc.rule!r}: {exc.message}"
                    )
                    break
                except EngineError as exc:
                    failures.append(f"actions[{i}] {entry['action']}: engine error: {exc}")
                    break
        if "expect" in entry:
            failures.extend(
                f"after actions[{i}]: {f}"
                for f in compare(entry["expect"], game.scenario_view(state))
            )
    if "expect" in data and not failures:
        failures.extend(compare(data["expect"], game.scenario_view(state)))
    return ScenarioResult(name, not failures, failures, state)
