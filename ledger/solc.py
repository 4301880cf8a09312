"""Compile the Solidity contracts with solcjs (node) through the standard-JSON API."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.errors import MetaLedgerError

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CONTRACTS_DIR = PROJECT_ROOT / "contracts"
SOURCES_DIR = CONTRACTS_DIR / "src"
NODE_MODULES = PROJECT_ROOT / "node_modules"

#: Compiler settings shared by every artifact (and mirrored in contracts/foundry.toml).
SETTINGS: dict[str, Any] = {
    "optimizer": {"enabled": True, "runs": 10_000},
    "evmVersion": "cancun",
    "outputSelection": {
        "*": {"*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"]},
    },
}

# Reads the standard-JSON input on stdin, resolves imports from node_modules, prints the output.
_NODE_SCRIPT = r"""
const fs = require("fs"), path = require("path");
const solc = require("solc");
const nm = process.argv[1];
function findImports(p) {
  const full = path.join(nm, p);
  return fs.existsSync(full) ? {contents: fs.readFileSync(full, "utf8")} : {error: "File not found: " + p};
}
const input = fs.readFileSync(0, "utf8");
process.stdout.write(JSON.stringify({version: solc.version(), output: JSON.parse(solc.compile(input, {import: findImports}))}));
"""


class CompileError(MetaLedgerError):
    """solc reported errors, or node/solcjs could not run."""


@dataclass(frozen=True)
class CompileResult:
    """Compiled contracts by name, plus what produced them."""

    contracts: dict[
        str, dict[str, Any]
    ]  # name -> {"abi", "bytecode", "deployedBytecode", "source"}
    solc_version: str
    settings: dict[str, Any]
    source_hash: str


def source_files() -> list[Path]:
    """The project's Solidity sources (contracts/src/**/*.sol), sorted."""
    return sorted(SOURCES_DIR.rglob("*.sol"))


def _source_name(path: Path) -> str:
    return path.relative_to(CONTRACTS_DIR).as_posix()


def _resolve(name: str) -> Path:
    """Map a solc source unit name back to its file."""
    if name.startswith("src/"):
        return CONTRACTS_DIR / name
    return NODE_MODULES / name


def source_hash_of(names: list[str]) -> str:
    """SHA-256 over (name, content) of every source unit, imported OpenZeppelin files included."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + _resolve(name).read_bytes() + b"\0")
    return "0x" + digest.hexdigest()


def compile_contracts() -> CompileResult:
    """Compile every source with solcjs; raise CompileError on any compiler error."""
    sources = {_source_name(p): {"content": p.read_text()} for p in source_files()}
    if not sources:
        raise CompileError(f"no Solidity sources under {SOURCES_DIR}")
    std_input = {"language": "Solidity", "sources": sources, "settings": SETTINGS}
    try:
        proc = subprocess.run(
            ["node", "-e", _NODE_SCRIPT, str(NODE_MODULES)],
            input=json.dumps(std_input),
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            check=False,
        )
    except FileNotFoundError as exc:
        raise CompileError("node is not installed") from exc
    if proc.returncode != 0:
        raise CompileError(f"solcjs failed: {proc.stderr.strip()[:2000]}")
    payload = json.loads(proc.stdout)
    output = payload["output"]
    errors = [e for e in output.get("errors", []) if e.get("severity") == "error"]
    if errors:
        raise CompileError(
            "; ".join(e.get("formattedMessage", e["message"]) for e in errors)[:4000]
        )
    contracts: dict[str, dict[str, Any]] = {}
    for source, by_name in output["contracts"].items():
        if not source.startswith("src/"):
            continue
        for name, out in by_name.items():
            bytecode = out["evm"]["bytecode"]["object"]
            if not bytecode:  # interfaces and abstract contracts
                continue
            contracts[name] = {
                "abi": out["abi"],
                "bytecode": "0x" + bytecode,
                "deployedBytecode": "0x" + out["evm"]["deployedBytecode"]["object"],
                "source": source,
            }
    return CompileResult(
        contracts=contracts,
        solc_version=payload["version"],
        settings={k: v for k, v in SETTINGS.items() if k != "outputSelection"},
        source_hash=source_hash_of(list(output["sources"])),
    )


_IMPORT = re.compile(r"""^\s*import\s+(?:[^"']*from\s+)?["']([^"']+)["']""", re.MULTILINE)


def current_source_hash() -> str:
    """The source hash of the sources on disk now, following imports without running the compiler."""
    seen: set[str] = set()
    todo = [_source_name(p) for p in source_files()]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for imported in _IMPORT.findall(_resolve(name).read_text()):
            if imported.startswith("."):  # relative to the importing unit, as solc resolves it
                imported = posixpath.normpath(posixpath.join(posixpath.dirname(name), imported))
            todo.append(imported)
    return source_hash_of(sorted(seen))
