"""What the three games' scenario tests share: a game's scenario files, running one through the
core's runner, and the rule ids its rules raise and its scenarios reject."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.core.scenario import run_scenario

_TESTS = Path(__file__).parent
_ENGINE = Path(__file__).resolve().parents[2] / "engine"


def scenario_files(game: str) -> list[Path]:
    """The game's scenario files (tests/engine/<game>/scenarios/*.json), sorted."""
    return sorted((_TESTS / game / "scenarios").glob("*.json"))


def scenario_params(game: str) -> list[Any]:
    """The game's scenario files as pytest parameters, each named by its file's stem."""
    return [pytest.param(path, id=path.stem) for path in scenario_files(game)]


def check_scenario(path: Path, game: str) -> dict[str, Any]:
    """Run one scenario file of `game` and fail with the runner's report unless it passes."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == game
    result = run_scenario(data, path.name)
    assert result.passed, result.report()
    return data


def rejected_rules(game: str) -> set[str]:
    """Every rule id some scenario of `game` expects an action to be rejected with."""
    out: set[str] = set()
    for path in scenario_files(game):
        for entry in json.loads(path.read_text(encoding="utf-8"))["actions"]:
            if isinstance(entry, dict) and entry.get("rejected"):
                out.add(entry["rejected"])
    return out


def rules_source(game: str) -> str:
    """The source of the game's rules (state.py and moves.py), where its rule ids are raised."""
    folder = _ENGINE / game
    return "".join((folder / name).read_text(encoding="utf-8") for name in ("state.py", "moves.py"))
