"""Every MetaVersus WISH scenario file passes through the core's scenario runner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.engine.scenario_support import (
    check_scenario,
    rejected_rules,
    rules_source,
    scenario_params,
)


@pytest.mark.parametrize("path", scenario_params("metaversus"))
def test_scenario(path: Path) -> None:
    data = check_scenario(path, "metaversus")
    assert data["rules"], "each scenario names the rules it covers"


def test_every_rejection_rule_has_a_scenario() -> None:
    """Each rule id the rules can reject with is exercised by at least one scenario."""
    source = rules_source("metaversus")
    rules = {"metaversus." + r for r in re.findall(r'\billegal\(\s*"([a-z.-]+)"', source)}
    rules |= {"metaversus.currency.phase", "metaversus.weapon.phase", "metaversus.action.phase"}
    rules |= {
        "metaversus.skill.passive",
        "metaversus.skill.no-uses",
        "metaversus.skill.once-per-turn",
        "metaversus.skill.phase",
    }
    # malformed argument lists and a bad slot number are covered by tests/engine/metaversus/test_metaversus_rules.py
    rules -= {"metaversus.action.malformed", "metaversus.buy.no-slot"}
    missing = rules - rejected_rules("metaversus")
    assert not missing, f"rejections without a scenario: {sorted(missing)}"


def test_the_issue_rejections_are_covered() -> None:
    names = rejected_rules("metaversus")
    for rule in (
        "metaversus.buy.over-gems",
        "metaversus.buy.currency-after-buy",
        "metaversus.star.required-card",
        "metaversus.action.no-ap",
    ):
        assert rule in names
