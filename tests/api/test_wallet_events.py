"""A wallet's collection as server-sent events (`GET /wallets/{address}/events`): the first
`cards` event is the collection, a transfer indexed by the indexer (the worker's two calls: the
pass, then the news on the broker) reaches a stream held by an API process as a new `cards`
event, a pass that changes nothing publishes nothing, and a bad address is a problem+json."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from eth_account import Account

from ledger.chain.deployment import Deployment
from ledger.db import get_engine
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from ledger.indexing.service import Indexer
from ledger.protocol.tokenids import token_id
from ledger.runtime.events import publish_wallet_news
from tests.api.conftest import PLAYER_KEYS, mint, transfer
from tests.api.test_processes import STATUSES, _api, _Stream

pytestmark = pytest.mark.chain


def test_a_transfer_reaches_the_wallets_stream_through_the_indexer_and_the_broker(
    evm_snapshot: AnvilNode,
    database_url: str,
    deployment_file: Path,
    deployment: Deployment,
    broker_url: str,
    tmp_path: Path,
) -> None:
    upgrade(database_url)
    sender, receiver = (Account.from_key(PLAYER_KEYS[k]).address for k in (0, 1))
    mint(evm_snapshot, deployment, {sender: {("metax", "AT-001"): 3}})
    indexer = Indexer(
        get_engine(database_url),
        evm_snapshot.transport,
        deployment.card_token,
        deployment.deployment_block,
        chain_id=evm_snapshot.w3.eth.chain_id,
    )
    assert sender.lower() in indexer.run_once().wallets
    api = _api(
        tmp_path,
        "api-wallet-events",
        rpc_url=evm_snapshot.rpc_url,
        database_url=database_url,
        deployment_file=str(deployment_file),
        data_dir=str(tmp_path),
        broker_url=broker_url,
        events_keepalive_seconds="12",  # the re-read at a keep-alive comes after the 5 s below
        api_access_log="false",
    ).wait(STATUSES)
    try:
        stream = _Stream(f"{api.url}/wallets/{receiver}/events", {})
        stream.wait_for(lambda: stream.events)
        first = stream.events[0]
        assert first["event"] == "cards"
        assert json.loads(first["data"])["cards"] == []
        assert json.loads(first["data"]) == httpx.get(f"{api.url}/wallets/{receiver}/cards").json()

        transfer(evm_snapshot, deployment, PLAYER_KEYS[0], receiver, token_id("metax", "AT-001"), 2)
        report = indexer.run_once()
        assert report.wallets == sorted({sender.lower(), receiver.lower()})
        assert publish_wallet_news(broker_url, report.wallets) == 2
        stream.wait_for(lambda: len(stream.events) >= 2, timeout=5)  # pushed: not the keep-alive
        pushed = json.loads(stream.events[1]["data"])
        assert stream.events[1]["event"] == "cards"
        assert [(c["card_id"], c["balance"]) for c in pushed["cards"]] == [("AT-001", 2)]
        # the next pass re-reads the same blocks: no net change, no news
        assert indexer.run_once().wallets == []
        stream.close()

        bad = httpx.get(f"{api.url}/wallets/0xAbC/events")
        assert bad.status_code == 422
        assert bad.headers["content-type"].startswith("application/problem+json")
    finally:
        api.stop()
