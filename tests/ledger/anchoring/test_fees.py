"""Fees: EIP-1559 fees from eth_feeHistory, and a stuck anchor replaced (same nonce, higher
fees, each replacement recorded before it is sent) until it lands, exactly once, on a real Anvil
whose base fee spikes while mining is held."""

from __future__ import annotations

import itertools
import time

import pytest
from eth_account import Account
from sqlalchemy import Engine, select

from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.chain import fees
from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.fees import Fees
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.anchoring import AnchorTransaction, Batch, BatchStatus
from ledger.devstack.anvil import AnvilNode
from tests.ledger.anchor_support import ANCHORER_KEY, add_results, deploy

GWEI = 10**9


def test_a_replacement_raises_both_fees_by_an_eighth_at_least() -> None:
    old = Fees(max_fee_per_gas=20 * GWEI, max_priority_fee_per_gas=GWEI)
    calm = Fees(max_fee_per_gas=GWEI, max_priority_fee_per_gas=1)
    new = old.replacement(calm, cap=1000 * GWEI)
    assert new == Fees(22_500_000_000, 1_125_000_000)
    assert old.replacement(calm, cap=22 * GWEI) is None, "the cap is never exceeded"
    spike = Fees(max_fee_per_gas=300 * GWEI, max_priority_fee_per_gas=2 * GWEI)
    assert old.replacement(spike, cap=1000 * GWEI) == spike, "at least what the chain asks now"
    tiny = Fees(1, 1).replacement(Fees(0, 0), cap=10)
    assert tiny == Fees(2, 2), "a fee of 1 wei still rises"
    assert Fees(50, 10).capped(5) == Fees(5, 5)


def test_fees_follow_the_fee_history(own_anvil: AnvilNode) -> None:
    rpc = JsonRpc(own_anvil.rpc_url)
    own_anvil.rpc("anvil_setNextBlockBaseFeePerGas", hex(40 * GWEI))
    own_anvil.mine(1)
    latest = int(own_anvil.rpc("eth_getBlockByNumber", "latest", False)["baseFeePerGas"], 16)
    assert latest == 40 * GWEI
    suggested = fees.suggest(rpc)
    assert suggested.max_priority_fee_per_gas > 0
    # room for the next block's base fee (an empty block lowers it by 1/8) to double
    next_base = latest * 7 // 8
    assert suggested.max_fee_per_gas == 2 * next_base + suggested.max_priority_fee_per_gas


@pytest.mark.chain
def test_a_stuck_anchor_is_replaced_with_higher_fees_and_lands_once(
    engine: Engine, own_anvil: AnvilNode
) -> None:
    node = own_anvil
    deployment: Deployment = deploy(node)
    add_results(engine, deployment, 3)
    rpc = JsonRpc(node.rpc_url)
    anchorer = Anchorer(
        engine,
        rpc,
        deployment.match_ledger,
        ANCHORER_KEY,
        AnchorConfig(
            batch_max_results=4,
            receipt_wait_seconds=0.3,
            replace_after_seconds=0.3,
            poll_seconds=0.05,
        ),
    )
    node.rpc("evm_setAutomine", False)  # hold mining: only node.mine() makes blocks
    first = anchorer.run_once(force=True)
    assert first.signed == [1] and first.unfinished_batches == 1
    with unit_of_work(engine, write=False) as s:
        (sent,) = s.scalars(select(AnchorTransaction)).all()
    # the base fee jumps far above what the first transaction offers, and stays high
    node.rpc("anvil_setNextBlockBaseFeePerGas", hex(sent.max_fee_per_gas * 40))
    node.mine(1)
    assert rpc.receipt(sent.tx_hash) is None, "a fee below the base fee is not mined"
    replaced: list[int] = []
    deadline = time.monotonic() + 60
    while True:
        time.sleep(0.35)
        report = anchorer.run_once()
        replaced += report.replaced
        if report.unfinished_batches == 0:
            break
        assert time.monotonic() < deadline, report.as_dict()
        node.mine(1)
    assert replaced, "the stuck transaction was replaced"
    ledger = MatchLedger(rpc, deployment.match_ledger)
    events = ledger.anchored_batches(deployment.deployment_block)
    assert [(e.batch_id, e.count) for e in events] == [(1, 3)], "anchored exactly once"
    anchorer_address = Account.from_key(ANCHORER_KEY).address
    assert rpc.nonce(anchorer_address) == 1, "one transaction of the anchorer landed"
    with unit_of_work(engine, write=False) as s:
        batch = s.get(Batch, 1)
        recorded = list(s.scalars(select(AnchorTransaction).order_by(AnchorTransaction.id)))
    assert batch is not None and batch.status == BatchStatus.CONFIRMED
    assert len(recorded) >= 2 and {t.nonce for t in recorded} == {0}
    assert batch.tx_hash == events[0].tx_hash in {t.tx_hash for t in recorded}
    assert batch.attempts == len(recorded)
    for old, new in itertools.pairwise(recorded):
        assert new.max_fee_per_gas * 8 >= old.max_fee_per_gas * 9
        assert new.max_priority_fee_per_gas * 8 >= old.max_priority_fee_per_gas * 9
    mined = [t for t in recorded if rpc.receipt(t.tx_hash) is not None]
    assert [t.tx_hash for t in mined] == [events[0].tx_hash]


@pytest.mark.chain
def test_at_the_fee_cap_the_anchor_waits_instead_of_overpaying(
    engine: Engine, own_anvil: AnvilNode
) -> None:
    node = own_anvil
    deployment = deploy(node)
    add_results(engine, deployment, 2)
    rpc = JsonRpc(node.rpc_url)
    config = AnchorConfig(receipt_wait_seconds=0.2, replace_after_seconds=0.2, poll_seconds=0.05)
    anchorer = Anchorer(engine, rpc, deployment.match_ledger, ANCHORER_KEY, config)
    node.rpc("evm_setAutomine", False)
    assert anchorer.run_once(force=True).signed == [1]
    with unit_of_work(engine, write=False) as s:
        (sent,) = s.scalars(select(AnchorTransaction)).all()
    capped = Anchorer(
        engine,
        rpc,
        deployment.match_ledger,
        ANCHORER_KEY,
        AnchorConfig(
            receipt_wait_seconds=0.2,
            replace_after_seconds=0.2,
            poll_seconds=0.05,
            max_fee_per_gas=sent.max_fee_per_gas,
        ),
    )
    node.rpc("anvil_setNextBlockBaseFeePerGas", hex(sent.max_fee_per_gas * 40))
    node.mine(1)
    time.sleep(0.3)
    report = capped.run_once()
    assert report.replaced == [] and report.rebroadcast == [1]
    with unit_of_work(engine, write=False) as s:
        assert len(s.scalars(select(AnchorTransaction)).all()) == 1
