"""engine/ is pure: no `random`, no third-party imports, no I/O modules, no clock."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "os",
    "subprocess",
    "socket",
    "threading",
    "asyncio",
    "secrets",
    "uuid",
}
# stdlib modules the engine may use
ALLOWED_STDLIB = {
    "__future__",
    "abc",
    "collections",
    "dataclasses",
    "hashlib",
    "importlib",
    "itertools",
    "json",
    "math",
    "operator",
    "struct",
    "typing",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_no_file_in_engine_imports_random_or_io() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files
    for path in files:
        bad = _imports(path) & FORBIDDEN
        assert not bad, f"{path.relative_to(ENGINE.parent)} imports {sorted(bad)}"


def test_metax_and_core_use_only_the_standard_library() -> None:
    for folder in ("core", "metax"):
        for path in sorted((ENGINE / folder).rglob("*.py")):
            for name in _imports(path) - {"engine"}:
                assert name in sys.stdlib_module_names, f"{path.name} imports third-party {name}"
                assert name in ALLOWED_STDLIB, f"{path.name} imports {name}"


def test_calls_to_random_elsewhere_do_not_change_a_result() -> None:
    import random

    from engine.core.bots import RandomBot, play_match
    from engine.core.game import get_game

    g = get_game("metax")
    random.seed(1)
    _, a = play_match(g, g.starter_decks, 5, (RandomBot(1), RandomBot(2)))
    random.seed(2)
    random.random()
    _, b = play_match(g, g.starter_decks, 5, (RandomBot(1), RandomBot(2)))
    assert a.final_hash == b.final_hash and a.actions == b.actions
