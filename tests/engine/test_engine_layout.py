"""The engine's layout: the same module set in every game folder, each module with the same role,
imports that point one way (no cycle hidden behind a type-only or deferred import), and no module
over 800 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
GAMES = ("metax", "metamasters", "metaversus")
MAX_LINES = 800

#: each module of a game folder, and the modules of the same folder it may import (every import
#: statement counts, wherever it stands: under `if TYPE_CHECKING`, inside a function, ...)
MAY_IMPORT: dict[str, set[str]] = {
    "effects": set(),
    "cards": {"effects"},
    "state": {"cards", "effects"},
    "moves": {"cards", "effects", "state"},
    "encoding": {"cards", "effects", "state", "moves"},
    "setup": {"cards", "effects", "state", "encoding"},
    "position": {"cards", "effects", "state", "encoding", "setup"},
    "heuristic": {"cards", "effects", "state"},
    "determinize": {"cards", "effects", "state", "encoding"},
    "__init__": {
        "cards",
        "effects",
        "state",
        "moves",
        "encoding",
        "setup",
        "position",
        "heuristic",
        "determinize",
    },
}


def _engine_imports(path: Path) -> set[str]:
    """Every engine module a file imports (dotted names), from any statement in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "engine")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == "engine"
        ):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_the_same_module_set(game: str) -> None:
    modules = {p.stem for p in (ENGINE / game).glob("*.py")}
    assert modules == set(MAY_IMPORT), f"engine/{game}: {sorted(modules ^ set(MAY_IMPORT))}"
    assert (ENGINE / game / "catalogue.json").is_file()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("module", sorted(MAY_IMPORT))
def test_imports_within_a_game_point_one_way(game: str, module: str) -> None:
    imported = _engine_imports(ENGINE / game / f"{module}.py")
    others = {f"engine.{g}" for g in GAMES if g != game}
    assert not {m for m in imported if m.rsplit(".", 1)[0] in others or m in others}, (
        f"engine/{game}/{module}.py imports another game"
    )
    own = {m.split(".")[2] for m in imported if m.startswith(f"engine.{game}.")}
    own &= set(
        MAY_IMPORT
    )  # `from engine.metax.cards import CARDS` also names engine.metax.cards.CARDS
    assert own <= MAY_IMPORT[module], (
        f"engine/{game}/{module}.py imports {sorted(own - MAY_IMPORT[module])}"
    )


def test_the_core_imports_no_game() -> None:
    for path in sorted((ENGINE / "core").glob("*.py")):
        games = {m for m in _engine_imports(path) if m.split(".")[1] in GAMES}
        assert not games, f"engine/core/{path.name} imports {sorted(games)}"


def test_no_module_is_over_800_lines() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 30
    long = {
        str(p.relative_to(ENGINE)): n
        for p in files
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, long
