"""Anchoring against a real Anvil and real SQLite / PostgreSQL: batches, retries, reorgs."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from eth_account import Account
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select, update

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import create_all, make_engine, unit_of_work
from ledger.db.models.anchoring import Batch, BatchStatus, ResultProof
from ledger.db.models.base import utcnow
from ledger.db.models.results import MatchResult, OutboxEntry
from ledger.devstack.anvil import AnvilNode
from ledger.errors import ServiceUnavailable
from ledger.protocol import merkle
from ledger.protocol.hexcodec import from_hex
from tests.ledger.anchor_support import ANCHORER_KEY, add_results, deploy

pytestmark = pytest.mark.chain


def make_anchorer(
    engine: Engine, anvil: AnvilNode, deployment: Deployment, **config: object
) -> Anchorer:
    """An anchorer on the test chain with small, fast settings."""
    cfg = AnchorConfig(
        **{"batch_max_results": 4, "batch_max_seconds": 60.0, "receipt_wait_seconds": 5.0, **config}
    )  # type: ignore[arg-type]
    return Anchorer(engine, JsonRpc(anvil.rpc_url), deployment.match_ledger, ANCHORER_KEY, cfg)


def assert_all_anchored_once(
    engine: Engine, anvil: AnvilNode, deployment: Deployment, n: int
) -> None:
    """Results in == results anchored, none twice; every stored proof verifies on-chain."""
    ledger = MatchLedger(JsonRpc(anvil.rpc_url), deployment.match_ledger)
    events = ledger.anchored_batches(deployment.deployment_block)
    assert sum(e.count for e in events) == n
    assert [e.batch_id for e in events] == list(range(1, len(events) + 1))
    with unit_of_work(engine) as s:
        assert (
            s.execute(
                select(func.count()).select_from(OutboxEntry).where(OutboxEntry.batch_id.is_(None))
            ).scalar_one()
            == 0
        )  # type: ignore[union-attr]
        batches = {b.id: b for b in s.scalars(select(Batch))}
        assert all(b.status == BatchStatus.CONFIRMED for b in batches.values())
        assert {b.id: b.root for b in batches.values()} == {
            e.batch_id: "0x" + e.root.hex() for e in events
        }
        proofs = list(s.scalars(select(ResultProof)))
        digests = dict(s.execute(select(MatchResult.id, MatchResult.digest)).all())
    assert len(proofs) == n == len({p.result_id for p in proofs})
    for p in proofs:
        assert p.digest == digests[p.result_id]
        assert merkle.verify(batches[p.batch_id].root, p.digest, p.proof)
        assert ledger.verify_result(p.batch_id, from_hex(p.digest), [from_hex(x) for x in p.proof])
        block = batches[p.batch_id].block_number
        assert (
            block is not None
            and anvil.w3.eth.get_block(block)["hash"].to_0x_hex() == batches[p.batch_id].block_hash
        )


def test_every_result_is_anchored_once_with_a_verifying_proof(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    add_results(engine, deployment, 10)
    report = make_anchorer(engine, evm_snapshot, deployment).run_until_idle(force=True)
    assert report.closed == [1, 2, 3] and report.confirmed == [1, 2, 3]
    assert_all_anchored_once(engine, evm_snapshot, deployment, 10)
    with unit_of_work(engine) as s:
        counts = [b.count for b in s.scalars(select(Batch).order_by(Batch.id))]  # type: ignore[arg-type]
    assert counts == [4, 4, 2]


def test_a_batch_closes_at_n_results_or_after_t_seconds(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    anchorer = make_anchorer(
        engine, evm_snapshot, deployment, batch_max_results=5, batch_max_seconds=30.0
    )
    add_results(engine, deployment, 3)
    assert anchorer.close_batch() is None  # 3 < N and younger than T
    add_results(engine, deployment, 2)
    assert anchorer.close_batch() == 1  # N reached
    add_results(engine, deployment, 1)
    assert anchorer.close_batch() is None
    assert anchorer.close_batch(now=utcnow() + timedelta(seconds=31)) == 2  # T elapsed
    anchorer.run_until_idle(force=False)
    assert_all_anchored_once(engine, evm_snapshot, deployment, 6)


def test_a_crash_after_recording_the_transaction_resends_the_same_bytes(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_results(engine, deployment, 3)
    anchorer = make_anchorer(engine, evm_snapshot, deployment)

    def broker_dies(raw: str) -> str:
        raise ServiceUnavailable("process killed before broadcasting")

    monkeypatch.setattr(anchorer.rpc, "send_raw", broker_dies)
    with pytest.raises(ServiceUnavailable):
        anchorer.run_once(force=True)
    with unit_of_work(engine) as s:
        batch = s.get(Batch, 1)
        assert batch is not None and batch.status == BatchStatus.SIGNED and batch.raw_tx
        recorded = (batch.nonce, batch.raw_tx, batch.tx_hash)
    assert (
        evm_snapshot.w3.eth.get_transaction_count(Account.from_key(ANCHORER_KEY).address)
        == recorded[0]
    )

    restarted = make_anchorer(engine, evm_snapshot, deployment)
    report = restarted.run_until_idle()
    assert report.rebroadcast == [1] and report.signed == []
    with unit_of_work(engine) as s:
        batch = s.get(Batch, 1)
        assert batch is not None and (batch.nonce, batch.raw_tx, batch.tx_hash) == recorded
        assert batch.attempts == 1
    assert_all_anchored_once(engine, evm_snapshot, deployment, 3)


def test_batch_already_anchored_is_recognised_not_anchored_twice(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    add_results(engine, deployment, 2)
    anchorer = make_anchorer(engine, evm_snapshot, deployment)
    anchorer.run_until_idle()
    # the database lost the fact that batch 1 was sent (e.g. restored from an older backup)
    with unit_of_work(engine) as s:
        s.execute(
            update(Batch).values(
                status=BatchStatus.CLOSED,
                raw_tx=None,
                tx_hash=None,
                nonce=None,
                block_number=None,
                block_hash=None,
            )
        )
    nonce = evm_snapshot.w3.eth.get_transaction_count(anchorer.account.address)
    report = anchorer.run_until_idle()
    assert report.signed == [] and report.confirmed == [1]
    assert evm_snapshot.w3.eth.get_transaction_count(anchorer.account.address) == nonce
    assert_all_anchored_once(engine, evm_snapshot, deployment, 2)


def test_a_replaced_nonce_gets_a_new_transaction_and_one_anchor(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_results(engine, deployment, 2)
    anchorer = make_anchorer(engine, evm_snapshot, deployment, receipt_wait_seconds=0.2)
    monkeypatch.setattr(anchorer.rpc, "send_raw", lambda raw: "")  # recorded, never broadcast
    anchorer.run_once(force=True)
    # the anchorer key is used elsewhere: the recorded nonce is consumed by another transaction
    w3 = evm_snapshot.w3
    account = Account.from_key(ANCHORER_KEY)
    tx = account.sign_transaction(
        {
            "to": account.address,
            "value": 0,
            "gas": 21000,
            "nonce": w3.eth.get_transaction_count(account.address),
            "chainId": 31337,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(tx.raw_transaction))
    report = make_anchorer(engine, evm_snapshot, deployment).run_until_idle()
    assert report.signed == [1]
    with unit_of_work(engine) as s:
        batch = s.get(Batch, 1)
        assert batch is not None and batch.attempts == 2
    assert_all_anchored_once(engine, evm_snapshot, deployment, 2)


@pytest.mark.parametrize("how", ["anvil_reorg", "evm_revert"])
def test_a_reorged_out_anchor_is_re_anchored_and_proofs_stay_valid(
    engine: Engine, own_anvil: AnvilNode, how: str, database_url: str
) -> None:
    if how == "evm_revert" and not database_url.startswith("sqlite"):
        pytest.skip("one database is enough for the second reorg flavour")
    anvil = own_anvil
    deployment = deploy(anvil)
    add_results(engine, deployment, 6)
    anchorer = make_anchorer(engine, anvil, deployment)
    before = anvil.snapshot()
    anchorer.run_until_idle(force=True)
    with unit_of_work(engine) as s:
        old = {b.id: b.block_hash for b in s.scalars(select(Batch))}
    anvil.mine(1)
    if how == "anvil_reorg":
        anvil.rpc("anvil_reorg", 4, [])  # replaces the last 4 blocks: both anchors are gone
    else:
        anvil.revert(before)
        anvil.mine(3)
    assert MatchLedger(JsonRpc(anvil.rpc_url), deployment.match_ledger).latest_batch_id() == 0
    report = anchorer.run_until_idle()
    assert sorted(report.reorged) == [1, 2]
    assert_all_anchored_once(engine, anvil, deployment, 6)
    with unit_of_work(engine) as s:
        new = {b.id: (b.block_hash, b.reorgs, b.attempts) for b in s.scalars(select(Batch))}
    assert all(new[i][0] != old[i] and new[i][1] == 1 for i in (1, 2))
    assert all(attempts == 1 for _h, _r, attempts in new.values())  # the same signed bytes re-sent


def test_a_batch_id_taken_by_another_root_is_re_batched(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    ours = add_results(engine, deployment, 3)
    anchorer = make_anchorer(engine, evm_snapshot, deployment)
    assert anchorer.close_batch(force=True) == 1  # closed, not yet sent
    # another database anchors its own batch 1 first (the same anchorer key, another root)
    other = make_engine(f"sqlite:///{tmp_path / 'other.db'}")
    create_all(other)
    add_results(other, deployment, 2)
    make_anchorer(other, evm_snapshot, deployment).run_until_idle(force=True)
    other.dispose()

    report = anchorer.run_until_idle()
    assert report.superseded == [1] and report.closed == [2] and report.confirmed == [2]
    ledger = MatchLedger(JsonRpc(evm_snapshot.rpc_url), deployment.match_ledger)
    with unit_of_work(engine) as s:
        proofs = {p.result_id: p for p in s.scalars(select(ResultProof))}
        batch = s.get(Batch, 2)
        assert batch is not None and s.get(Batch, 1) is None
        assert (
            batch.prev_batch_hash == "0x" + ledger.anchored_batches(batch_id=1)[0].batch_hash.hex()
        )
    assert sorted(proofs) == sorted(ours)
    for p in proofs.values():
        assert p.batch_id == 2
        assert ledger.verify_result(2, from_hex(p.digest), [from_hex(x) for x in p.proof])


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.sampled_from(["results", "pass", "force", "fork", "reorg", "crash", "mine"]),
        min_size=3,
        max_size=12,
    )
)
def test_property_any_interleaving_anchors_every_result_exactly_once(
    steps: list[str],
    evm_snapshot: AnvilNode,
    deployment: Deployment,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Random interleavings of arriving results, passes, forks, reorgs (evm_revert) and crashes
    between recording and broadcasting: in the end results in == results anchored, none twice."""
    anvil = evm_snapshot
    base = anvil.snapshot()
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('prop') / 'db.sqlite'}")
    create_all(engine)
    try:
        anchorer = make_anchorer(
            engine, anvil, deployment, batch_max_results=3, receipt_wait_seconds=0.5
        )
        n, forks = 0, []
        for step in steps:
            if step == "results":
                n += len(add_results(engine, deployment, 2))
            elif step in ("pass", "force"):
                anchorer.run_once(force=step == "force")
            elif step == "fork":
                forks.append(anvil.snapshot())
            elif step == "reorg" and forks:
                anvil.revert(forks.pop())
                forks.clear()  # later snapshots are gone with the revert
                anvil.mine(1)
            elif step == "crash":  # recorded, never broadcast: the next pass must re-send the bytes
                original = anchorer.rpc.send_raw
                anchorer.rpc.send_raw = lambda raw: ""  # type: ignore[method-assign]
                try:
                    anchorer.run_once(force=True)
                finally:
                    anchorer.rpc.send_raw = original  # type: ignore[method-assign]
            elif step == "mine":
                anvil.mine(2)
        anchorer.run_until_idle(force=True)
        assert_all_anchored_once(engine, anvil, deployment, n)
    finally:
        engine.dispose()
        anvil.revert(base)
