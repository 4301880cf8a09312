"""The anchorer and `metaledger verify` behind a provider that refuses eth_getLogs over 1,000
blocks and rate-limits: every BatchAnchored event is read from the one block MatchLedger recorded
for its batch, so a chain thousands of blocks long needs no scan and no range is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from sqlalchemy import Engine, update

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.export import export_bundle
from ledger.audit.verify import verify_bundle
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.anchoring import Batch, BatchStatus
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.rpcproxy import LimitedRpcProxy
from tests.fixtures.rpcproxy import provider_transport_options
from tests.ledger.anchor_support import ANCHORER_KEY, add_results, store_played_match

pytestmark = pytest.mark.chain
ROOT = Path(__file__).resolve().parents[3]


def test_anchoring_and_verifying_a_long_chain_through_a_limited_provider(
    engine: Engine,
    evm_snapshot: AnvilNode,
    deployment: Deployment,
    limited_rpc: LimitedRpcProxy,
    tmp_path: Path,
) -> None:
    anvil = evm_snapshot
    rpc = JsonRpc(limited_rpc.url, **provider_transport_options())  # type: ignore[arg-type]
    anchorer = Anchorer(
        engine, rpc, deployment.match_ledger, ANCHORER_KEY, AnchorConfig(receipt_wait_seconds=10)
    )
    first = store_played_match(engine, anvil, deployment, "metax", 1)
    anchorer.run_until_idle(force=True)  # batch 1
    anvil.mine(700)
    add_results(engine, deployment, 2)
    anchorer.run_until_idle(force=True)  # batch 2
    anvil.mine(700)
    last = store_played_match(engine, anvil, deployment, "metax", 2)
    anchorer.run_until_idle(force=True)  # batch 3
    assert anvil.w3.eth.block_number - deployment.deployment_block > 1400

    # the database forgets that batch 3 was sent: the anchorer adopts the event, sends nothing
    nonce = rpc.nonce(Account.from_key(ANCHORER_KEY).address)
    with unit_of_work(engine) as s:
        s.execute(
            update(Batch)
            .where(Batch.id == 3)
            .values(status=BatchStatus.CLOSED, tx_hash=None, raw_tx=None, block_hash=None)
        )
    anchorer.run_until_idle(force=True)
    assert rpc.nonce(Account.from_key(ANCHORER_KEY).address) == nonce
    with unit_of_work(engine, write=False) as s:
        batch = s.get(Batch, 3)
        assert batch is not None and batch.status == BatchStatus.CONFIRMED
        bundles = [
            export_bundle(
                s, m, card_token=deployment.card_token, deployment_block=deployment.deployment_block
            )
            for m in (first, last)
        ]

    assert [b["anchor"]["batch_id"] for b in bundles] == [1, 3]
    for bundle in bundles:
        checks = verify_bundle(bundle, limited_rpc.url, max_log_range=5000)
        assert [c.name for c in checks if not c.ok] == [], [c for c in checks if not c.ok]
        chain = next(c for c in checks if c.name == "batch-hash-chain")
        assert "the ledger's head is batch 3" in chain.detail
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundles[1]))
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "verify", str(path), "--rpc", limited_rpc.url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "batch 3 in block" in done.stdout and "chains to batch 2" in done.stdout
    stats = limited_rpc.stats
    assert stats.logs_refused == 0 and stats.widest_log_range_served == 1
    assert stats.logs_served >= 4  # the adoption, the events of batches 1, 2 and 3
    assert stats.http_429 >= 1 and stats.json_rate_limited >= 1
