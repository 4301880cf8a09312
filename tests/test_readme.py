"""The README's configuration table names every setting, and its two commands exist."""

from __future__ import annotations

from pathlib import Path

from ledger.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [n for n in Settings.model_fields if f"`METALEDGER_{n.upper()}`" not in readme]
    assert not missing, f"README configuration table lacks {missing}"


def test_the_two_commands_are_make_targets_and_ci_runs_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "\nrun: install\n" in makefile and "\ntest: install " in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()
