"""`metaledger verify` after the chain restarts: the local chain keeps its historical states
(ownership at an old block stays checkable); a chain that lost them is named in plain words.
Both run the CLI as a subprocess on the v1 bundles and their real chain state."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.devstack.anvil import AnvilNode, start_anvil

pytestmark = pytest.mark.chain
V1 = Path(__file__).resolve().parents[2] / "fixtures" / "v1"
BUNDLE = V1 / "bundles" / "metax_greedy.json"


def _verify(rpc_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli", "verify", str(BUNDLE), "--rpc", rpc_url],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _restart_twice(state: Path, tmp: Path) -> AnvilNode:
    """Start the stack's Anvil on the state, stop it (it writes the state back), start again."""
    first = start_anvil(state_file=state, log_file=tmp / "anvil.log", timeout=60)
    first.stop()
    return start_anvil(state_file=state, log_file=tmp / "anvil.log", timeout=60)


def test_a_bundle_verifies_after_the_local_chain_restarts(tmp_path: Path) -> None:
    state = tmp_path / "anvil-state.json"
    shutil.copy(V1 / "anvil-state.json", state)
    node = _restart_twice(state, tmp_path)
    try:
        result = _verify(node.rpc_url)
    finally:
        node.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "✓ ownership" in result.stdout


def test_a_chain_without_historical_states_is_named_in_plain_words(tmp_path: Path) -> None:
    # what `make run` did before: --state without --preserve-historical-states, then a restart
    state = tmp_path / "anvil-state.json"
    shutil.copy(V1 / "anvil-state.json", state)
    old_way = ["--state", str(state)]
    first = start_anvil(log_file=tmp_path / "anvil.log", timeout=60, extra_args=old_way)
    first.stop()  # writes the state back, without the historical states
    node = start_anvil(log_file=tmp_path / "anvil.log", timeout=60, extra_args=old_way)
    try:
        result = _verify(node.rpc_url)
    finally:
        node.stop()
    assert result.returncode == 1
    line = next(x for x in result.stdout.splitlines() if "ownership" in x)
    assert line.startswith("✗ ownership: the RPC cannot serve block 8, where ownership was pinned")
    assert line.endswith(
        "checking it needs an archive node (one that keeps the state of old blocks)"
    )
    assert "Traceback" not in result.stdout + result.stderr
