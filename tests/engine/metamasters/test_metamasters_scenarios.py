"""Every MetaMasters scenario file, run through the core's scenario runner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.core.scenario import run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def test_scenarios_exist() -> None:
    assert len(SCENARIOS) >= 30


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    result = run_scenario(json.loads(path.read_text(encoding="utf-8")), path.name)
    assert result.passed, result.report()


def test_every_rejection_rule_has_a_scenario() -> None:
    folder = Path(__file__).parents[3] / "engine" / "metamasters"
    source = "".join(
        (folder / name).read_text(encoding="utf-8") for name in ("state.py", "moves.py")
    )
    raised = set(re.findall(r'"(metamasters\.[a-z_]+\.[a-z_]+)"', source))
    rejected: set[str] = set()
    for path in SCENARIOS:
        for entry in json.loads(path.read_text(encoding="utf-8"))["actions"]:
            if isinstance(entry, dict) and entry.get("rejected"):
                rejected.add(entry["rejected"])
    assert raised and raised <= rejected, sorted(raised - rejected)
