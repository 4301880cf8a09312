"""Every MetaMasters scenario file, run through the core's scenario runner."""

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


def test_scenarios_exist() -> None:
    assert len(scenario_files("metamasters")) >= 30


@pytest.mark.parametrize("path", scenario_params("metamasters"))
def test_scenario(path: Path) -> None:
    check_scenario(path, "metamasters")


def test_every_rejection_rule_has_a_scenario() -> None:
    raised = set(re.findall(r'"(metamasters\.[a-z_]+\.[a-z_]+)"', rules_source("metamasters")))
    assert raised and raised <= rejected_rules("metamasters"), sorted(
        raised - rejected_rules("metamasters")
    )
