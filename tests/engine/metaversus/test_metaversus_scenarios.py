"""Every MetaVersus WISH scenario file passes through the core's scenario runner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.core.scenario import run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))
ENGINE_FOLDER = Path(__file__).resolve().parents[3] / "engine" / "metaversus"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data["game"] == "metaversus"
    assert data["rules"], "each scenario names the rules it covers"
    result = run_scenario(data, path.name)
    assert result.passed, result.report()


def _rejections() -> set[str]:
    out: set[str] = set()
    for path in SCENARIOS:
        for entry in json.loads(path.read_text())["actions"]:
            if isinstance(entry, dict) and "rejected" in entry:
                out.add(entry["rejected"])
    return out


def test_every_rejection_rule_has_a_scenario() -> None:
    """Each rule id the rules can reject with is exercised by at least one scenario."""
    source = "".join((ENGINE_FOLDER / name).read_text() for name in ("state.py", "moves.py"))
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
    missing = rules - _rejections()
    assert not missing, f"rejections without a scenario: {sorted(missing)}"


def test_the_issue_rejections_are_covered() -> None:
    names = _rejections()
    for rule in (
        "metaversus.buy.over-gems",
        "metaversus.buy.currency-after-buy",
        "metaversus.star.required-card",
        "metaversus.action.no-ap",
    ):
        assert rule in names
