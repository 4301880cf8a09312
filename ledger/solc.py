"""Build tooling: compile the Solidity contracts with forge and turn its output into artifacts.

forge is the one compile path: the forge tests, slither and `metaledger contracts build` all use the
project in contracts/ (foundry.toml: solc through the solcjs wrapper, optimizer, EVM version). This
module reads contracts/ from the source checkout (PROJECT_ROOT); it is build tooling only. The
product never imports it at run time: it reads the built artifacts (`ledger.artifacts`).

Two artifact sets come out of one build: the contracts the product deploys (contracts/src, written
to ledger/artifacts/) and the test-only mocks (contracts/test/mocks, written to
tests/contracts/artifacts/). Each artifact records the SHA-256 of the sources it was built from, so a
staleness check needs no compiler.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.errors import MetaLedgerError

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CONTRACTS_DIR = PROJECT_ROOT / "contracts"
FOUNDRY_TOML = CONTRACTS_DIR / "foundry.toml"
FORGE_OUT = CONTRACTS_DIR / "out"


class CompileError(MetaLedgerError):
    """forge reported errors, or could not run."""


@dataclass(frozen=True)
class ArtifactSet:
    """Contracts compiled from one source folder (relative to contracts/) into one artifact folder."""

    sources: str
    out_dir: Path

    def source_files(self) -> list[Path]:
        """The set's Solidity files, sorted."""
        return sorted((CONTRACTS_DIR / self.sources).rglob("*.sol"))

    def contract_names(self) -> list[str]:
        """Names of the deployable (non-abstract, non-interface) contracts in the set's files."""
        return sorted(
            name for path in self.source_files() for name in _CONTRACT.findall(path.read_text())
        )


#: What the product deploys or reads.
PRODUCT = ArtifactSet("src", PROJECT_ROOT / "ledger" / "artifacts")
#: Test-only contracts (an EIP-1271 wallet, a re-entering taker), never shipped.
TEST_MOCKS = ArtifactSet("test/mocks", PROJECT_ROOT / "tests" / "contracts" / "artifacts")
ARTIFACT_SETS: tuple[ArtifactSet, ...] = (PRODUCT, TEST_MOCKS)

_CONTRACT = re.compile(r"^contract\s+(\w+)", re.MULTILINE)
_IMPORT = re.compile(r"""^\s*import\s+(?:[^"']*from\s+)?["']([^"']+)["']""", re.MULTILINE)


@dataclass(frozen=True)
class CompileResult:
    """Compiled contracts by name, plus what produced them."""

    contracts: dict[
        str, dict[str, Any]
    ]  # name -> {"abi", "bytecode", "deployedBytecode", "source"}
    solc_version: str
    settings: dict[str, Any]
    source_hash: str


def compiler_settings() -> dict[str, Any]:
    """The compiler settings in contracts/foundry.toml, as recorded in every artifact."""
    profile = tomllib.loads(FOUNDRY_TOML.read_text())["profile"]["default"]
    return {
        "optimizer": {
            "enabled": bool(profile["optimizer"]),
            "runs": int(profile["optimizer_runs"]),
        },
        "evmVersion": str(profile["evm_version"]),
        "viaIR": bool(profile.get("via_ir", False)),
    }


def _remappings() -> list[tuple[str, str]]:
    profile = tomllib.loads(FOUNDRY_TOML.read_text())["profile"]["default"]
    pairs = [str(r).split("=", 1) for r in profile.get("remappings", [])]
    return [(prefix, target) for prefix, target in pairs]


def _unit_name(imported: str, importer: str) -> str:
    """The source unit name solc gives an import: relative to the importer, or remapped."""
    if imported.startswith("."):
        return posixpath.normpath(posixpath.join(posixpath.dirname(importer), imported))
    for prefix, target in _remappings():
        if imported.startswith(prefix):
            return target + imported.removeprefix(prefix)
    return imported


def source_units(artifact_set: ArtifactSet) -> list[str]:
    """Every source unit the set's files import, transitively (names relative to contracts/)."""
    seen: set[str] = set()
    todo = [p.relative_to(CONTRACTS_DIR).as_posix() for p in artifact_set.source_files()]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(
            _unit_name(imported, name)
            for imported in _IMPORT.findall((CONTRACTS_DIR / name).read_text())
        )
    return sorted(seen)


def source_hash_of(names: list[str]) -> str:
    """SHA-256 over (name, content) of every source unit, imported OpenZeppelin files included."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + (CONTRACTS_DIR / name).read_bytes() + b"\0")
    return "0x" + digest.hexdigest()


def current_source_hash(artifact_set: ArtifactSet = PRODUCT) -> str:
    """The source hash of the set's sources on disk now (no compiler run)."""
    return source_hash_of(source_units(artifact_set))


def forge_build() -> None:
    """Run `forge build` in contracts/ (tests and scripts skipped); raise CompileError on failure."""
    from ledger.toolchain import node_bin

    forge = node_bin("forge")
    try:
        proc = subprocess.run(
            [str(forge), "build", "--offline", "--skip", "test", "--skip", "script"],
            cwd=CONTRACTS_DIR,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise CompileError(f"forge could not run: {exc}") from exc
    if proc.returncode != 0:
        raise CompileError(f"forge build failed: {(proc.stderr or proc.stdout).strip()[:4000]}")


def collect(artifact_set: ArtifactSet) -> CompileResult:
    """The set's contracts from forge's output (run `forge_build` first)."""
    units = source_units(artifact_set)
    settings = compiler_settings()
    contracts: dict[str, dict[str, Any]] = {}
    versions: set[str] = set()
    for path in artifact_set.source_files():
        source = path.relative_to(CONTRACTS_DIR).as_posix()
        for name in _CONTRACT.findall(path.read_text()):
            out = FORGE_OUT / path.name / f"{name}.json"
            if not out.is_file():
                raise CompileError(f"forge wrote no artifact for {name} ({out})")
            data = json.loads(out.read_text())
            meta = data["metadata"]
            built = meta["settings"]
            if meta["settings"]["compilationTarget"] != {source: name}:
                raise CompileError(f"{out} was not built from {source}")
            used = {
                "optimizer": built["optimizer"],
                "evmVersion": built["evmVersion"],
                "viaIR": bool(built.get("viaIR", False)),
            }
            if used != settings:
                raise CompileError(f"{out} was built with other settings than foundry.toml's")
            if not set(meta["sources"]) <= set(units):
                raise CompileError(f"{name} imports sources the staleness check doesn't follow")
            versions.add(meta["compiler"]["version"])
            contracts[name] = {
                "abi": data["abi"],
                "bytecode": data["bytecode"]["object"],
                "deployedBytecode": data["deployedBytecode"]["object"],
                "source": source,
            }
    if len(versions) > 1:
        raise CompileError(f"artifacts built by several compilers: {sorted(versions)}")
    return CompileResult(
        contracts=contracts,
        solc_version=versions.pop() if versions else "",
        settings=settings,
        source_hash=source_hash_of(units),
    )
