"""Bulk audit: `metaledger verify FOLDER|FILE... --rpc URL` as a subprocess on real anchored
bundles; a tampered bundle fails the run, a malformed file is one `error:` line, the chain reads
bundles of one batch share are made once."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.bulk import _Worker, bundle_files, verify_many
from ledger.audit.export import export_bundle
from ledger.chain.contracts import VERIFY_RESULT
from ledger.chain.deployment import Deployment
from ledger.chain.snapshot import SnapshotRpc
from ledger.chain.transport import JsonRpc
from ledger.db import create_all, make_engine, unit_of_work
from ledger.devstack.anvil import AnvilNode, start_anvil
from ledger.errors import InvalidInput
from ledger.protocol.untrusted import JsonLimits
from ledger.settings import Settings
from tests.ledger.anchor_support import ANCHORER_KEY, deploy, store_played_match

pytestmark = pytest.mark.chain


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Three played MetaX matches anchored in one batch on a private Anvil; their bundles."""
    node: AnvilNode = start_anvil(log_file=tmp_path_factory.mktemp("anvil-bulk") / "anvil.log")
    try:
        deployment: Deployment = deploy(node)
        url = f"sqlite:///{tmp_path_factory.mktemp('bulk-db') / 'metaledger.db'}"
        engine = make_engine(url)
        create_all(engine)
        ids = [store_played_match(engine, node, deployment, "metax", salt) for salt in range(3)]
        Anchorer(
            engine, JsonRpc(node.rpc_url), deployment.match_ledger, ANCHORER_KEY, AnchorConfig()
        ).run_until_idle(force=True)
        with unit_of_work(engine) as s:
            bundles = [
                export_bundle(
                    s,
                    m,
                    card_token=deployment.card_token,
                    deployment_block=deployment.deployment_block,
                )
                for m in ids
            ]
        engine.dispose()
        yield {"bundles": bundles, "rpc": node.rpc_url}
    finally:
        node.stop()


def _write(folder: Path, name: str, bundle: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(bundle))
    return path


def _verify(*args: str, columns: str | None = "200") -> subprocess.CompletedProcess[str]:
    """`metaledger verify ARGS` as a subprocess (`columns`: the terminal width it is told, None
    for none: rich's default of 80 columns, as when its output goes to a pipe)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli", "verify", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _tampered(bundle: dict[str, Any]) -> dict[str, Any]:
    """The bundle with one more copy of a card in seat 0's deck list."""
    forged = copy.deepcopy(bundle)
    cards = forged["decks"][0]["cards"]
    cards[sorted(cards)[0]] += 1
    return forged


def test_a_folder_with_a_tampered_bundle_fails_and_names_it(
    anchored: dict[str, Any], tmp_path: Path
) -> None:
    folder = tmp_path / "season"
    _write(folder, "good.json", anchored["bundles"][0])
    _write(folder, "tampered.json", _tampered(anchored["bundles"][1]))
    done = _verify(str(folder), "--rpc", anchored["rpc"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "tampered.json" in done.stdout and "decks" in done.stdout
    assert "good.json" not in done.stdout  # only failures are listed
    summary = done.stdout.splitlines()
    assert any(line.split() == ["│", "2", "│", "1", "│", "1", "│", "0", *line.split()[8:]]
               for line in summary), done.stdout  # fmt: skip


def test_good_bundles_pass_and_exit_zero(anchored: dict[str, Any], tmp_path: Path) -> None:
    files = [_write(tmp_path, f"b{i}.json", b) for i, b in enumerate(anchored["bundles"])]
    done = _verify(*map(str, files), "--rpc", anchored["rpc"], "--jobs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failed bundles" not in done.stdout
    assert any(line.split()[:8] == ["│", "3", "│", "3", "│", "0", "│", "0"]
               for line in done.stdout.splitlines()), done.stdout  # fmt: skip


def test_a_malformed_file_is_one_error_line_and_the_others_are_checked(
    anchored: dict[str, Any], tmp_path: Path
) -> None:
    _write(tmp_path, "good.json", anchored["bundles"][2])
    (tmp_path / "broken.json").write_text('{"format": ')
    done = _verify(str(tmp_path), "--rpc", anchored["rpc"], columns=None)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "broken.json" in errors[0], done.stderr
    # the whole reason on that one line (not wrapped at the terminal's width), the path once
    assert errors[0] == (
        f"error: {tmp_path / 'broken.json'}: the file is not JSON: Expecting value: line 1 "
        "column 12 (char 11)"
    )
    assert errors[0].count("broken.json") == 1, errors[0]
    assert "Traceback" not in done.stderr
    assert any(line.split()[:8] == ["│", "2", "│", "1", "│", "0", "│", "1"]
               for line in done.stdout.splitlines()), done.stdout  # fmt: skip


def test_a_missing_path_is_one_error_line(tmp_path: Path, anchored: dict[str, Any]) -> None:
    done = _verify(str(tmp_path / "nothing-here"), "--rpc", anchored["rpc"])
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error:") and "no such file" in done.stderr
    with pytest.raises(InvalidInput, match="without any"):
        bundle_files([tmp_path])


def test_bundles_of_one_batch_share_their_chain_reads(anchored: dict[str, Any]) -> None:
    rpc = SnapshotRpc(anchored["rpc"])
    head = rpc.pin()
    from ledger.audit.verify import run_checks

    for bundle in anchored["bundles"]:
        assert all(c.ok for c in run_checks(bundle, rpc))
    # the chain id, domain, batch events, root, head hash and signer check are read once
    assert rpc.hits >= 2 * 6, (rpc.calls, rpc.hits)
    assert rpc.pinned == head and rpc.block_number() == head


def test_in_process_outcomes_match_the_files(anchored: dict[str, Any], tmp_path: Path) -> None:
    good = _write(tmp_path, "a.json", anchored["bundles"][0])
    bad = _write(tmp_path, "b.json", _tampered(anchored["bundles"][0]))
    limits = JsonLimits.for_bundles(Settings())
    outcomes = verify_many([good, bad], anchored["rpc"], limits, jobs=1)
    assert [o.ok for o in outcomes] == [True, False]
    assert "decks" in outcomes[1].failed and outcomes[1].detail.startswith("decks:")


def test_a_chunk_asks_its_bundles_verify_result_calls_in_one_request(
    anchored: dict[str, Any], tmp_path: Path
) -> None:
    files = [_write(tmp_path, f"b{i}.json", b) for i, b in enumerate(anchored["bundles"])]
    bodies: list[bytes] = []

    class Recorded(SnapshotRpc):
        def _post(self, method: str, body: bytes) -> bytes:
            bodies.append(body)
            return super()._post(method, body)

    worker = _Worker(Recorded(anchored["rpc"]), JsonLimits.for_bundles(Settings()))
    worker.rpc.pin()
    outcomes = worker.verify_chunk(files)
    assert [o.ok for o in outcomes] == [True] * len(files), outcomes
    selector = "0x" + VERIFY_RESULT.hex()
    asking = [json.loads(b) for b in bodies if selector.encode() in b]
    assert len(asking) == 1, asking  # one batch, no call asked again alone
    assert isinstance(asking[0], list) and len(asking[0]) == len(files)
    assert {r["method"] for r in asking[0]} == {"eth_call"}
    # and the same outcomes one file at a time (no batch)
    alone = _Worker(SnapshotRpc(anchored["rpc"]), JsonLimits.for_bundles(Settings()))
    alone.rpc.pin()
    assert [alone.verify_chunk([f])[0] for f in files] == outcomes
