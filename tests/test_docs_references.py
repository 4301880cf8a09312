"""The guides name only code that exists: every `ledger.x.y` / `api.x` name in README.md,
DEVELOPERS.md and docs/*.md resolves, and every source or test path they give is there."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [ROOT / "README.md", ROOT / "DEVELOPERS.md", *sorted((ROOT / "docs").glob("*.md"))]
DOTTED = re.compile(r"`((?:ledger|api|workers|engine)(?:\.[A-Za-z_]\w*)+)")
PATH = re.compile(r"(?<![\w./-])((?:ledger|api|workers|engine|tests)/[\w/.-]*\w)")


def _resolves(name: str) -> bool:
    """Whether `name` is a module, or an attribute reached from the longest importable prefix."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return False
        return True
    return False


def _mentions(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    return [
        (f"{guide.relative_to(ROOT)}:{number}", found)
        for guide in GUIDES
        for number, line in enumerate(guide.read_text().splitlines(), 1)
        for found in pattern.findall(line)
    ]


def test_every_dotted_name_in_the_guides_resolves() -> None:
    names = _mentions(DOTTED)
    assert len(names) > 20
    assert [(where, name) for where, name in names if not _resolves(name)] == []


def test_every_source_path_in_the_guides_exists() -> None:
    paths = _mentions(PATH)
    assert len(paths) > 20
    assert [(where, p) for where, p in paths if "<" not in p and not (ROOT / p).exists()] == []
