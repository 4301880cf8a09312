"""Compiled contract artifacts: one JSON per deployed contract, built by `metaledger contracts build`.

Each file holds ``contractName``, ``abi``, ``bytecode``, ``deployedBytecode``, ``source``,
``solcVersion``, ``settings`` and ``sourceHash`` (SHA-256 over every source unit, imported
OpenZeppelin files included). Loaded with importlib.resources so it works from an installed wheel:
the package only reads these files, it never needs the Solidity sources. Function selectors, event
topics and custom errors are read from the ABIs here rather than typed out by their users.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Any

from eth_abi import decode
from eth_abi.exceptions import DecodingError
from eth_hash.auto import keccak
from eth_utils import to_checksum_address

from ledger.errors import MetaLedgerError

#: The contracts the product deploys (test-only mocks live in tests/contracts/artifacts/).
CONTRACT_NAMES: tuple[str, ...] = ("CardToken", "MatchLedger", "CardExchange")


class ArtifactNotFoundError(MetaLedgerError):
    """No compiled artifact for that contract name; run `metaledger contracts build`."""


def canonical_type(param: Mapping[str, Any]) -> str:
    """The canonical ABI type of one parameter, with tuples spelled out: `(address,uint256[])[]`."""
    kind = str(param["type"])
    if kind.startswith("tuple"):
        inner = ",".join(canonical_type(c) for c in param["components"])
        return f"({inner}){kind.removeprefix('tuple')}"
    return kind


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

    def _item(self, kind: str, name: str) -> dict[str, Any]:
        items = [i for i in self.abi if i["type"] == kind and i.get("name") == name]
        if len(items) != 1:
            raise ArtifactNotFoundError(f"{self.name} has {len(items)} {kind}s named {name!r}")
        return items[0]

    def signature(self, kind: str, name: str) -> str:
        """The canonical signature of ABI item `name` of `kind` ("function", "event", "error")."""
        item = self._item(kind, name)
        return f"{name}({','.join(canonical_type(p) for p in item['inputs'])})"

    def selector(self, name: str) -> bytes:
        """The 4-byte selector of function `name`."""
        return keccak(self.signature("function", name).encode())[:4]

    def event_topic(self, name: str) -> str:
        """The topic-0 (0x-hex) of event `name`."""
        return "0x" + keccak(self.signature("event", name).encode()).hex()

    def error(self, name: str) -> str:
        """`name`, checked to be a custom error of this ABI (ArtifactNotFoundError otherwise)."""
        self._item("error", name)
        return name

    @cached_property
    def errors(self) -> dict[bytes, tuple[str, list[str]]]:
        """Every custom error of the ABI (inherited ones included): selector -> (name, arg types)."""
        found: dict[bytes, tuple[str, list[str]]] = {}
        for item in self.abi:
            if item["type"] == "error":
                types = [canonical_type(p) for p in item["inputs"]]
                found[keccak(f"{item['name']}({','.join(types)})".encode())[:4]] = (
                    item["name"],
                    types,
                )
        return found

    def decode_error(self, data: bytes) -> tuple[str, tuple[Any, ...]] | None:
        """The custom error (name, arguments) of revert data, or None if it is not one of ours."""
        known = self.errors.get(bytes(data[:4])) if len(data) >= 4 else None
        if known is None:
            return None
        name, types = known
        try:
            return name, tuple(decode(types, bytes(data[4:])))
        except DecodingError:  # malformed arguments: still name the error
            return name, ()


def parse_artifact(text: str) -> Artifact:
    """An Artifact from the JSON text of an artifact file."""
    data = json.loads(text)
    return Artifact(
        name=data["contractName"],
        abi=data["abi"],
        bytecode=data["bytecode"],
        deployed_bytecode=data["deployedBytecode"],
        solc_version=data["solcVersion"],
        settings=data["settings"],
        source_hash=data["sourceHash"],
    )


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
    return parse_artifact(path.read_text())


def decode_revert(data: bytes) -> tuple[str, tuple[Any, ...]] | None:
    """The custom error (name, arguments) of revert data from any deployed contract, else None."""
    for name in CONTRACT_NAMES:
        decoded = load_artifact(name).decode_error(data)
        if decoded is not None:
            return decoded
    return None


def describe_revert(data: bytes) -> str | None:
    """`Name(arg, ...)` for revert data carrying a custom error of any deployed contract, else None."""
    decoded = decode_revert(data)
    if decoded is None:
        return None
    error, args = decoded
    shown = ", ".join("0x" + a.hex() if isinstance(a, bytes) else str(a) for a in args)
    return f"{error}({shown})"


@dataclass(frozen=True)
class Revert:
    """A custom error decoded from revert data: its name and its arguments by name, JSON-able
    (addresses checksummed, integers as decimal strings, bytes as 0x-hex)."""

    name: str
    args: dict[str, Any]

    def text(self) -> str:
        """`Name(arg=value, ...)`, as CLI messages show it."""
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.args.items())})"

    def as_dict(self) -> dict[str, Any]:
        """{"name": ..., "args": {...}} for API answers."""
        return {"name": self.name, "args": dict(self.args)}


def _jsonable_arg(kind: str, value: Any) -> Any:
    if kind == "address":
        return to_checksum_address(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, list | tuple):
        return [_jsonable_arg(kind.removesuffix("[]"), v) for v in value]
    return value


def explain_revert(data: bytes) -> Revert | None:
    """The custom error of revert data from any deployed contract (its own errors and the
    OpenZeppelin ones it inherits, ERC-1155's included) with its arguments by name, else None."""
    selector = bytes(data[:4])
    for contract in CONTRACT_NAMES:
        artifact = load_artifact(contract)
        if selector not in artifact.errors:
            continue
        name, types = artifact.errors[selector]
        item = next(
            i
            for i in artifact.abi
            if i["type"] == "error"
            and i["name"] == name
            and [canonical_type(p) for p in i["inputs"]] == types
        )
        try:
            values = decode(types, bytes(data[4:]))
        except DecodingError:
            return Revert(name, {})
        names = [p["name"] or f"arg{k}" for k, p in enumerate(item["inputs"])]
        return Revert(
            name,
            {n: _jsonable_arg(t, v) for n, t, v in zip(names, types, values, strict=True)},
        )
    return None


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
