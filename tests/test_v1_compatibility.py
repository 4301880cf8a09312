"""Artefacts made by version 1 keep verifying: engine transcripts replay bit for bit, and
anchored bundles pass `metaledger verify` (run as a subprocess) against the chain they were
anchored on.

The fixtures in tests/fixtures/v1/ were produced by commit 316c47d (the first release):
`metaledger engine play` transcripts, and four bundles (three bot matches, one human-vs-human
match ended by resignation) exported from a `metaledger run` stack whose Anvil ran with
`--preserve-historical-states`; `anvil-state.json` is that chain's state. Never regenerate them:
their point is that they come from an earlier version.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import replay
from tests.ledger.audit.test_verify_imports import forbidden_among, imported_by

FIXTURES = Path(__file__).parent / "fixtures" / "v1"
TRANSCRIPTS = sorted((FIXTURES / "transcripts").glob("*.json"))
BUNDLES = sorted((FIXTURES / "bundles").glob("*.json"))


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_v1_transcript_replays_to_its_final_hash(path: Path) -> None:
    transcript = json.loads(path.read_text())
    result = replay(transcript)
    assert result.final_hash == transcript["final_hash"]
    assert result.winner == transcript["winner"]


@pytest.fixture(scope="module")
def v1_chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An Anvil loaded with the v1 chain state (historical states kept), on a free port."""
    from ledger.devstack.anvil import chain_answers
    from ledger.devstack.ports import free_port
    from ledger.devstack.toolchain import node_bin

    work = tmp_path_factory.mktemp("v1chain")
    state = work / "anvil-state.json"
    shutil.copy(FIXTURES / "anvil-state.json", state)
    port = free_port()
    args = [
        str(node_bin("anvil")),
        "--host", "127.0.0.1",
        "--port", str(port),
        "--chain-id", "31337",
        "--preserve-historical-states",
        "--load-state", str(state),
    ]  # fmt: skip
    with (work / "anvil.log").open("wb") as log:
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        import time

        deadline = time.monotonic() + 30
        while not chain_answers(url):
            assert process.poll() is None and time.monotonic() < deadline, "Anvil did not start"
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.chain
@pytest.mark.parametrize("path", BUNDLES, ids=[p.stem for p in BUNDLES])
def test_v1_bundle_verifies_with_the_cli(path: Path, v1_chain: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "ledger.cli",
            "verify",
            str(path),
            "--rpc",
            v1_chain,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✗" not in done.stdout
    for check in ("merkle-proof", "signature", "ownership", "replay"):
        assert f"✓ {check}" in done.stdout
    # the whole verification (replay included) loaded nothing of the operator's side
    modules = imported_by(done.stderr)
    assert "engine" in modules and "ledger.audit.verify" in modules
    assert forbidden_among(modules) == []
