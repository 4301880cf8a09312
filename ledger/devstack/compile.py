"""Build tooling: compile the Solidity contracts with forge and turn its output into artifacts.

forge is the one compile path: the forge tests, slither and `metaledger contracts build` all use the
project in contracts/ (foundry.toml: solc through the solcjs wrapper, optimizer, EVM version). This
module reads contracts/ from the source checkout (`checkout_root()`); it is build tooling only. The
product never imports it at run time: it reads the built artifacts (`ledger.chain.artifacts`).

Two artifact sets come out of one build: the contracts the product deploys (contracts/src, written
to ledger/chain/artifacts/) and the test-only mocks (contracts/test/mocks, written to
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

from ledger.devstack.toolchain import checkout_root
from ledger.errors import MetaLedgerError


def contracts_dir() -> Path:
    """The forge project of the checkout (contracts/)."""
    return checkout_root() / "contracts"


def _foundry_profile() -> dict[str, Any]:
    profile: dict[str, Any] = tomllib.loads((contracts_dir() / "foundry.toml").read_text())
    return dict(profile["profile"]["default"])


class CompileError(MetaLedgerError):
    """forge reported errors, or could not run."""


@dataclass(frozen=True)
class ArtifactSet:
    """Contracts compiled from one source folder (relative to contracts/) into one artifact
    folder (relative to the checkout)."""

    sources: str
    out: str

    @property
    def out_dir(self) -> Path:
        """Where the set's artifacts are written."""
        return checkout_root() / self.out

    def source_files(self) -> list[Path]:
        """The set's Solidity files, sorted."""
        return sorted((contracts_dir() / self.sources).rglob("*.sol"))

    def contract_names(self) -> list[str]:
        """Names of the deployable (non-abstract, non-interface) contracts in the set's files."""
        return sorted(
            name for path in self.source_files() for name in _CONTRACT.findall(path.read_text())
        )


#: What the product deploys or reads.
PRODUCT = ArtifactSet("src", "ledger/chain/artifacts")
#: Test-only contracts (an EIP-1271 wallet, a re-entering taker), never shipped.
TEST_MOCKS = ArtifactSet("test/mocks", "tests/contracts/artifacts")
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
    profile = _foundry_profile()
    return {
        "optimizer": {
            "enabled": bool(profile["optimizer"]),
            "runs": int(profile["optimizer_runs"]),
        },
        "evmVersion": str(profile["evm_version"]),
        "viaIR": bool(profile.get("via_ir", False)),
    }


def _remappings() -> list[tuple[str, str]]:
    profile = _foundry_profile()
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
    root = contracts_dir()
    todo = [p.relative_to(root).as_posix() for p in artifact_set.source_files()]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(
            _unit_name(imported, name) for imported in _IMPORT.findall((root / name).read_text())
        )
    return sorted(seen)


def source_hash_of(names: list[str]) -> str:
    """SHA-256 over (name, content) of every source unit, imported OpenZeppelin files included."""
    digest = hashlib.sha256()
    root = contracts_dir()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return "0x" + digest.hexdigest()


def current_source_hash(artifact_set: ArtifactSet = PRODUCT) -> str:
    """The source hash of the set's sources on disk now (no compiler run)."""
    return source_hash_of(source_units(artifact_set))


def forge_build() -> None:
    """Run `forge build` in contracts/ (tests and scripts skipped); raise CompileError on failure."""
    from ledger.devstack.toolchain import node_bin

    forge = node_bin("forge")
    try:
        proc = subprocess.run(
            [str(forge), "build", "--offline", "--skip", "test", "--skip", "script"],
            cwd=contracts_dir(),
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
    root = contracts_dir()
    for path in artifact_set.source_files():
        source = path.relative_to(root).as_posix()
        for name in _CONTRACT.findall(path.read_text()):
            out = root / "out" / path.name / f"{name}.json"
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


class StaleArtifactsError(MetaLedgerError):
    """The committed artifacts don't match the Solidity sources."""


def build_artifacts() -> list[tuple[ArtifactSet, CompileResult]]:
    """Compile contracts/ with forge and rewrite every set's artifact folder (stale files
    removed); the sets with what was built into each."""
    from ledger.chain.artifacts import artifact_json

    forge_build()
    built = []
    for artifact_set in ARTIFACT_SETS:
        result = collect(artifact_set)
        artifact_set.out_dir.mkdir(parents=True, exist_ok=True)
        for old in artifact_set.out_dir.glob("*.json"):
            if old.stem not in result.contracts:
                old.unlink()
        for name, compiled in sorted(result.contracts.items()):
            text = artifact_json(
                name, compiled, result.solc_version, result.settings, result.source_hash
            )
            (artifact_set.out_dir / f"{name}.json").write_text(text)
        built.append((artifact_set, result))
    return built


def check_artifacts() -> list[tuple[ArtifactSet, str]]:
    """StaleArtifactsError if any artifact is missing or was built from other sources or
    settings (no compiler run); else every set with its source hash."""
    from ledger.chain.artifacts import parse_artifact

    settings = compiler_settings()
    checked = []
    for artifact_set in ARTIFACT_SETS:
        expected = current_source_hash(artifact_set)
        names = artifact_set.contract_names()
        stored = {p.stem for p in artifact_set.out_dir.glob("*.json")}
        if stored != set(names):
            raise StaleArtifactsError(
                f"{artifact_set.out_dir} holds {sorted(stored)}, the sources define {names}; "
                "run `metaledger contracts build`"
            )
        for name in names:
            artifact = parse_artifact((artifact_set.out_dir / f"{name}.json").read_text())
            if artifact.source_hash != expected or artifact.settings != settings:
                raise StaleArtifactsError(
                    f"artifact {name} is stale (sources or settings changed); "
                    "run `metaledger contracts build`"
                )
        checked.append((artifact_set, expected))
    return checked
