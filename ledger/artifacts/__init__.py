"""Compiled contract artifacts: one JSON per contract, built by `metaledger contracts build`.

Each file holds ``contractName``, ``abi``, ``bytecode``, ``deployedBytecode``, ``solcVersion``,
``settings`` and ``sourceHash`` (SHA-256 over every source unit, imported OpenZeppelin files
included). Loaded with importlib.resources so it works from an installed wheel too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ledger.errors import MetaLedgerError

#: The production contracts (the others in this folder are test-only mocks).
CONTRACT_NAMES: tuple[str, ...] = ("CardToken", "MatchLedger", "CardExchange")


class ArtifactNotFoundError(MetaLedgerError):
    """No compiled artifact for that contract name; run `metaledger contracts build`."""


@dataclass(frozen=True)
class Artifact:
    """One compiled contract."""

    name: str
    abi: list[dict[str, Any]]
    bytecode: str
    deployed_bytecode: str
    solc_version: str
    settings: dict[str, Any]
    source_hash: str


def artifact_names() -> list[str]:
    """Names of every stored artifact, sorted."""
    root = resources.files(__name__)
    return sorted(p.name.removesuffix(".json") for p in root.iterdir() if p.name.endswith(".json"))


@cache
def load_artifact(name: str) -> Artifact:
    """Load the artifact of contract `name` (e.g. "CardToken")."""
    path = resources.files(__name__).joinpath(f"{name}.json")
    if not path.is_file():
        raise ArtifactNotFoundError(f"no artifact for {name!r}; run `metaledger contracts build`")
    data = json.loads(path.read_text())
    return Artifact(
        name=data["contractName"],
        abi=data["abi"],
        bytecode=data["bytecode"],
        deployed_bytecode=data["deployedBytecode"],
        solc_version=data["solcVersion"],
        settings=data["settings"],
        source_hash=data["sourceHash"],
    )


def artifact_json(
    name: str,
    compiled: dict[str, Any],
    solc_version: str,
    settings: dict[str, Any],
    source_hash: str,
) -> str:
    """Serialise one artifact deterministically (sorted keys, trailing newline)."""
    body = {
        "contractName": name,
        "abi": compiled["abi"],
        "bytecode": compiled["bytecode"],
        "deployedBytecode": compiled["deployedBytecode"],
        "source": compiled["source"],
        "solcVersion": solc_version,
        "settings": settings,
        "sourceHash": source_hash,
    }
    return json.dumps(body, indent=1, sort_keys=True) + "\n"
