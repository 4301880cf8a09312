"""Every MetaX scenario file (rulebook worked examples and one per rule) passes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.core.scenario import run_scenario

FILES = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def test_there_are_scenarios_for_the_worked_examples() -> None:
    names = {p.stem for p in FILES}
    assert {
        "example-darkseid-undefended",
        "example-armin-defends-blackfire",
        "example-team-attack-batman-catwoman",
    } <= names
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_scenario(json.loads(path.read_text(encoding="utf-8")), path.name)
    assert result.passed, result.report()


def test_every_rejection_rule_has_a_scenario() -> None:
    folder = Path(__file__).resolve().parents[3] / "engine" / "metax"
    source = "".join((folder / name).read_text() for name in ("state.py", "moves.py"))
    rules = {"metax." + r for r in re.findall(r'\billegal\(\s*"([a-z.-]+)"', source)}
    rules |= {
        f"metax.{area}.{what}"
        for area in ("planning", "battle")
        for what in ("not-in-hand", "wrong-kind")
    }
    rules |= {"metax.planning.not-your-character", "metax.battle.not-your-character"}
    rejected = set()
    for path in FILES:
        for entry in json.loads(path.read_text())["actions"]:
            if isinstance(entry, dict) and "rejected" in entry:
                rejected.add(entry["rejected"])
    assert len(rules) >= 30
    missing = sorted(rules - rejected)
    assert not missing, f"rules without a rejection scenario: {missing}"
