"""docs/architecture.md keeps up with the tree: every package of ledger/ and every top folder it
draws exists and is drawn, every import-linter contract is named, README and DEVELOPERS link it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def _tree() -> str:
    """The fenced block under '## The tree'."""
    section = DOC.read_text().split("## The tree", 1)[1]
    return section.split("```", 2)[1]


def _drawn(indent: int) -> set[str]:
    """The folder names the tree draws at `indent` spaces (`name/` at the start of a line)."""
    names: set[str] = set()
    for line in _tree().splitlines():
        if len(line) - len(line.lstrip(" ")) != indent:
            continue
        head = line.strip().split("  ")[0]  # a name (or names) then two spaces then the role
        names.update(n.rstrip("/") for n in head.split() if n.endswith("/"))
    return names


def test_the_tree_draws_every_ledger_package_and_nothing_that_is_not_there() -> None:
    packages = {p.name for p in (ROOT / "ledger").iterdir() if (p / "__init__.py").is_file()}
    assert _drawn(2) - {"core", "metax", "metamasters", "metaversus"} == packages


def test_every_top_folder_drawn_exists() -> None:
    drawn = _drawn(0)
    assert {"engine", "ledger", "api", "workers", "contracts", "tests"} <= drawn
    assert [name for name in sorted(drawn) if not (ROOT / name).is_dir()] == []


def test_every_import_contract_is_named() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    names = [c["name"] for c in contracts["contracts"]]
    text = DOC.read_text()
    assert len(names) >= 8
    assert [n for n in names if f"| {n} |" not in text] == []


def test_readme_and_developers_link_it_and_name_only_real_folders() -> None:
    for guide in ("README.md", "DEVELOPERS.md"):
        text = (ROOT / guide).read_text()
        assert "docs/architecture.md" in text, f"{guide} does not link docs/architecture.md"
        layout = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
        folders = set(re.findall(r"^\| `([\w./-]+/)`", layout, flags=re.M))
        assert folders, f"{guide} has no layout table"
        assert [f for f in sorted(folders) if not (ROOT / f).is_dir()] == [], guide
