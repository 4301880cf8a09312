"""Every MetaX scenario file (rulebook worked examples and one per rule) passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.engine.scenario_support import (
    check_scenario,
    rejected_rules,
    rules_source,
    scenario_files,
    scenario_params,
)


def test_there_are_scenarios_for_the_worked_examples() -> None:
    files = scenario_files("metax")
    names = {p.stem for p in files}
    assert {
        "example-darkseid-undefended",
        "example-armin-defends-blackfire",
        "example-team-attack-batman-catwoman",
    } <= names
    assert len(files) >= 30


@pytest.mark.parametrize("path", scenario_params("metax"))
def test_scenario(path: Path) -> None:
    check_scenario(path, "metax")


def test_every_rejection_rule_has_a_scenario() -> None:
    source = rules_source("metax")
    rules = {"metax." + r for r in re.findall(r'\billegal\(\s*"([a-z.-]+)"', source)}
    rules |= {
        f"metax.{area}.{what}"
        for area in ("planning", "battle")
        for what in ("not-in-hand", "wrong-kind")
    }
    rules |= {"metax.planning.not-your-character", "metax.battle.not-your-character"}
    assert len(rules) >= 30
    missing = sorted(rules - rejected_rules("metax"))
    assert not missing, f"rules without a rejection scenario: {missing}"
