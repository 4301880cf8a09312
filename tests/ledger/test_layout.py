"""The layout of ledger/ (docs/architecture.md): at most three loose modules at its top level,
every package saying its role in a one-line docstring, no module over 800 lines, tests mirroring
the packages; the import rules themselves are import-linter's (`lint-imports` in `make test`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "ledger"
MAX_LINES = 800


def _packages() -> list[Path]:
    return sorted(p.parent for p in LEDGER.rglob("__init__.py") if "__pycache__" not in p.parts)


def test_at_most_three_loose_modules() -> None:
    loose = sorted(p.name for p in LEDGER.glob("*.py"))
    assert loose == ["__init__.py", "errors.py", "settings.py"]


def test_every_package_says_its_role_in_one_line() -> None:
    for package in _packages():
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
        where = package.relative_to(ROOT)
        assert doc, f"{where}/__init__.py has no docstring"
        role = doc.split("\n\n")[0]  # the summary; details may follow after a blank line
        assert "\n" not in role, f"{where}/__init__.py: say the role in one line"


def test_no_module_is_over_800_lines() -> None:
    for folder in ("engine", "ledger", "api", "workers"):
        for module in (ROOT / folder).rglob("*.py"):
            if "migrations" in module.parts:
                continue
            lines = len(module.read_text().splitlines())
            assert lines <= MAX_LINES, f"{module.relative_to(ROOT)} has {lines} lines"


def test_tests_mirror_the_packages() -> None:
    top = sorted(p.name for p in _packages() if p.parent == LEDGER)
    mirrored = sorted(p.name for p in (ROOT / "tests" / "ledger").iterdir() if p.is_dir())
    missing = [name for name in top if name not in mirrored]
    assert not missing, f"no tests/ledger/<package>/ for {missing}"
