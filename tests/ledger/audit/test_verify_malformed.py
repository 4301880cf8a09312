"""`metaledger verify` answers every malformed bundle with one `error:` line naming what is
wrong (exit 2), never a traceback and never a crash: it reads bundles with the API's input
limits and checks their shape before any check runs."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger.errors import InvalidInput
from ledger.protocol.bundle import check_shape

BUNDLE = Path(__file__).parents[2] / "fixtures" / "v1" / "bundles" / "metax_greedy.json"
#: nothing listens there: a malformed bundle must be refused before the chain is asked
NO_RPC = "http://127.0.0.1:9"


def _mutated(change: Callable[[dict[str, Any]], object]) -> bytes:
    bundle = json.loads(BUNDLE.read_text())
    change(bundle)
    return json.dumps(bundle).encode()


def _set(path: str, value: object) -> Callable[[dict[str, Any]], object]:
    def change(bundle: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = bundle
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _drop(path: str) -> Callable[[dict[str, Any]], object]:
    def change(bundle: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = bundle
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return change


def _raw(old: bytes, new: bytes) -> bytes:
    data = BUNDLE.read_bytes()
    assert old in data
    return data.replace(old, new, 1)


CASES: dict[str, tuple[bytes, str]] = {
    "deep nesting": (b"[" * 100_000, "nests deeper than 32"),
    "deep nesting inside": (
        _raw(b'"options": {}', b'"options": ' + b"[" * 5000 + b"]" * 5000),
        "nests deeper",
    ),
    "not an object": (b"[1, 2, 3]", "malformed bundle"),
    "empty file": (b"", "is not JSON"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00", "not valid UTF-8"),
    "NaN": (_raw(b'"batch_id": 1', b'"batch_id": NaN'), "$.anchor.batch_id"),
    "huge number": (_raw(b'"batch_id": 1', b'"batch_id": 1180591620717411303424'), "64-bit"),
    "huge exponent": (_raw(b'"batch_id": 1', b'"batch_id": 1e999'), "too large"),
    "surrogate key": (
        _raw(b'"B-INT-2": 1', b'"\\ud800": 1'),
        "lone UTF-16 surrogate",
    ),
    "surrogate value": (_raw(b'"game": "metax"', b'"game": "\\udc00"'), "surrogate"),
    "NUL": (_raw(b'"end_reason": "completed"', b'"end_reason": "a\\u0000b"'), "NUL"),
    "missing anchor": (_mutated(_drop("anchor")), "anchor: Field required"),
    "missing signature": (_mutated(_drop("result.signature")), "result.signature"),
    "wrong type chain id": (_mutated(_set("chain.chain_id", "31337")), "chain.chain_id"),
    "bool as number": (_mutated(_set("anchor.batch_id", True)), "anchor.batch_id"),
    "negative block": (
        _mutated(_set("result.typed_data.message.ownershipBlock", -1)),
        "ownershipBlock",
    ),
    "bad hex digest": (_mutated(_set("result.digest", "0xzz")), "result.digest"),
    "short hex root": (_mutated(_set("anchor.root", "0x1234")), "anchor.root"),
    "bad address": (_mutated(_set("decks.0.player", "0xnothex")), "decks.0.player"),
    "one deck": (_mutated(lambda b: b["decks"].pop()), "decks"),
    "proof not a list": (_mutated(_set("anchor.proof", "0x00")), "anchor.proof"),
    "copies as string": (_mutated(_set("decks.0.cards.B-INT-2", "1")), "decks.0.cards"),
    "transcript actions": (_mutated(_set("transcript.actions", "x")), "transcript"),
    "transcript seed": (_mutated(_set("transcript.seed", "zz")), "transcript"),
    "transcript over not a boolean": (_mutated(_set("transcript.over", "yes")), "transcript.over"),
    "zero-width and rtl": (
        _mutated(
            _set("chain.match_ledger", "0x\u200be7f1725E7734CE288F8367e1Bb143E90bb3F05\u202e")
        ),
        "chain.match_ledger",
    ),
}


def _verify(path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli", "verify", str(path), "--rpc", NO_RPC],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _one_error_line(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert expected in lines[0], lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_bundles_get_one_error_line(name: str, tmp_path: Path) -> None:
    data, expected = CASES[name]
    path = tmp_path / "bundle.json"
    path.write_bytes(data)
    _one_error_line(_verify(path), expected)


@pytest.mark.slow
def test_files_that_cannot_be_read_or_are_too_large(tmp_path: Path) -> None:
    _one_error_line(_verify(tmp_path / "missing.json"), "cannot read")
    _one_error_line(_verify(tmp_path), "cannot read")
    big = tmp_path / "big.json"
    big.write_bytes(BUNDLE.read_bytes())
    _one_error_line(_verify(big, {"METALEDGER_MAX_BUNDLE_BYTES": "4096"}), "larger than 4096")


def test_a_well_formed_bundle_passes_the_shape_check_and_reaches_the_rpc(tmp_path: Path) -> None:
    bundle = json.loads(BUNDLE.read_text())
    check_shape(copy.deepcopy(bundle))
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    done = _verify(path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and "malformed" not in done.stderr  # the RPC is down


def test_the_library_reports_a_malformed_bundle_as_a_failed_format_check() -> None:
    bundle = json.loads(BUNDLE.read_text())
    bundle["anchor"]["batch_id"] = "1"
    with pytest.raises(InvalidInput) as refused:
        check_shape(bundle)
    assert refused.value.extra["field"] == "anchor.batch_id"
