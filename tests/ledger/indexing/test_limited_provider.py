"""The indexer behind a provider that refuses eth_getLogs over 1,000 blocks and rate-limits:
chunked, halved, retried, and resumed from its cursor after the provider goes away mid-scan."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.indexing import IndexerCursor
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import seed_demo
from ledger.devstack.rpcproxy import LimitedRpcProxy
from ledger.errors import ServiceUnavailable
from ledger.indexing.service import Indexer
from tests.fixtures.rpcproxy import PROVIDER_LOG_RANGE, provider_transport_options
from tests.ledger.indexing.test_service import (
    ALICE,
    BOB,
    CARDS,
    PUBLISHER,
    assert_balances_match_chain,
)

pytestmark = pytest.mark.chain


def test_the_indexer_reads_a_long_chain_through_a_limited_provider(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment, limited_rpc: LimitedRpcProxy
) -> None:
    anvil = evm_snapshot
    seed_demo(anvil.w3, deployment, PUBLISHER, {ALICE: [(CARDS[0], 3)]})
    anvil.mine(650)
    seed_demo(anvil.w3, deployment, PUBLISHER, {BOB: [(CARDS[1], 2)]})
    anvil.mine(650)
    seed_demo(anvil.w3, deployment, PUBLISHER, {ALICE: [(CARDS[2], 1)]})
    rpc = JsonRpc(limited_rpc.url, **provider_transport_options())  # type: ignore[arg-type]
    indexer = Indexer(engine, rpc, deployment.card_token, deployment.deployment_block, 4)
    # the provider goes away after the first chunk: what was read stays, with its cursor
    served_before = limited_rpc.stats.logs_served
    original = rpc.call

    def call(method: str, *params: object) -> object:
        if method == "eth_getLogs" and limited_rpc.stats.logs_served > served_before:
            limited_rpc.down = True
        return original(method, *params)

    rpc.call = call  # type: ignore[method-assign]
    with pytest.raises(ServiceUnavailable):
        indexer.run_once()
    with unit_of_work(engine, write=False) as s:
        cursor = s.get(IndexerCursor, deployment.card_token)
        assert cursor is not None and deployment.deployment_block < cursor.last_block
        assert cursor.last_block < anvil.w3.eth.block_number
    limited_rpc.down = False
    rpc.call = original  # type: ignore[method-assign]
    report = indexer.run_once()
    assert report.from_block > deployment.deployment_block, "resumed from the cursor"
    assert_balances_match_chain(engine, anvil, deployment)
    stats = limited_rpc.stats
    assert stats.logs_refused >= 1 and stats.widest_log_range_served <= PROVIDER_LOG_RANGE
    assert stats.http_429 >= 1 and stats.json_rate_limited >= 1
    assert rpc.max_log_range <= PROVIDER_LOG_RANGE, "the halved range is kept"
