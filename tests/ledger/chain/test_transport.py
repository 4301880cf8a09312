"""The one JSON-RPC transport against a real Anvil, through a proxy that behaves like a public
provider when told to (busy answers, a refused log range, a dropped connection): keep-alive,
retries with back-off, the error mapping, and chunked eth_getLogs halved on a range error."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import pytest
from eth_account import Account

from ledger.chain.contracts import TRANSFER_BATCH, TRANSFER_SINGLE, MatchLedger, revert_name
from ledger.chain.deployment import Deployment
from ledger.chain.transport import ChainReadDeferred, JsonRpc, RpcError, deferring_chain_reads
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.rpcproxy import JsonAnswerHandler
from ledger.errors import ChainError, ServiceUnavailable
from ledger.protocol.tokenids import token_id
from tests.api.conftest import mint


@dataclass
class Provider:
    """What the proxy does: answer 503 to the next `busy` requests, refuse eth_getLogs wider
    than `max_range` blocks, close the connection after every answer (`close`)."""

    busy: int = 0
    max_range: int | None = None
    close: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    connections: set[int] = field(default_factory=set)


@pytest.fixture
def proxy(anvil: AnvilNode) -> Iterator[tuple[str, Provider]]:
    provider = Provider()

    class Handler(JsonAnswerHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = json.loads(body)
            provider.requests.append(request)
            provider.connections.add(self.client_address[1])
            if provider.busy > 0:
                provider.busy -= 1
                self.answer(503, b'{"error": "busy"}', close=provider.close)
                return
            if request["method"] == "eth_getLogs" and provider.max_range is not None:
                query = request["params"][0]
                span = int(query["toBlock"], 16) - int(query["fromBlock"], 16) + 1
                if span > provider.max_range:
                    error = {"code": -32005, "message": "query returned more than 10000 results"}
                    reply = {"jsonrpc": "2.0", "id": request["id"], "error": error}
                    self.answer(200, json.dumps(reply).encode(), close=provider.close)
                    return
            self.forward(anvil.rpc_url, body, close=provider.close)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", provider
    finally:
        server.shutdown()
        server.server_close()


def test_calls_share_one_keep_alive_connection(proxy: tuple[str, Provider]) -> None:
    url, provider = proxy
    rpc = JsonRpc(url)
    assert rpc.chain_id() == 31337
    for _ in range(20):
        rpc.block_number()
    assert len(provider.requests) == 21 and len(provider.connections) == 1
    rpc.close()


def test_a_connection_the_server_closed_is_reopened(proxy: tuple[str, Provider]) -> None:
    url, provider = proxy
    provider.close = True
    rpc = JsonRpc(url, retries=1, backoff=10.0)  # a back-off this long would time the test out
    heads = [rpc.block_number() for _ in range(5)]
    assert len(set(heads)) == 1 and len(provider.connections) == 5
    rpc.close()


def test_busy_answers_are_retried_with_back_off(proxy: tuple[str, Provider]) -> None:
    url, provider = proxy
    provider.busy = 2
    assert JsonRpc(url, retries=2, backoff=0.01).chain_id() == 31337
    assert len(provider.requests) == 3
    provider.busy = 3
    with pytest.raises(ServiceUnavailable, match="does not answer eth_chainId: HTTP 503"):
        JsonRpc(url, retries=2, backoff=0.01).chain_id()


def test_a_dead_node_is_service_unavailable_naming_the_method() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServiceUnavailable, match=f"127.0.0.1:{port} does not answer eth_chainId"):
        JsonRpc(f"http://127.0.0.1:{port}", timeout=0.5, retries=1, backoff=0.01).chain_id()
    with pytest.raises(ServiceUnavailable, match="not an http"):
        JsonRpc("ws://127.0.0.1:8545")


def test_a_refusal_is_an_rpc_error_with_the_revert(
    anvil: AnvilNode, deployment: Deployment
) -> None:
    rpc = JsonRpc(anvil.rpc_url)
    with pytest.raises(RpcError) as refused:
        rpc.call("eth_noSuchMethod")
    assert isinstance(refused.value, ChainError) and refused.value.revert_data is None
    ledger = MatchLedger(rpc, deployment.match_ledger)
    stranger = Account.create().address
    problem = ledger.simulate_anchor(stranger, 1, b"\x01" * 32, 1, b"\x00" * 32)
    assert problem == "AccessControlUnauthorizedAccount"
    with pytest.raises(RpcError) as reverted:
        rpc.eth_call(ledger.address, b"\xde\xad\xbe\xef")
    assert reverted.value.revert_data == b"" and revert_name(reverted.value) is None


def test_logs_come_in_chunks_halved_on_a_range_error(
    evm_snapshot: AnvilNode, deployment: Deployment, proxy: tuple[str, Provider]
) -> None:
    url, provider = proxy
    start = evm_snapshot.transport.block_number() + 1
    owner = Account.create().address
    for _ in range(6):  # six mints, each in its own block, with empty blocks between them
        mint(evm_snapshot, deployment, {owner: {("metax", "U92-JL"): 1}})
        evm_snapshot.mine(2)
    end = evm_snapshot.transport.block_number()
    topics = [[TRANSFER_SINGLE, TRANSFER_BATCH]]
    whole = JsonRpc(evm_snapshot.rpc_url, max_log_range=10_000)
    expected = whole.logs(deployment.card_token, topics, start, end)
    assert len(expected) >= 6
    tid = f"{token_id('metax', 'U92-JL'):064x}"
    assert all(tid in entry["data"] for entry in expected)

    provider.max_range = 3  # the provider refuses more than three blocks per query
    chunked = JsonRpc(url, max_log_range=8)
    assert chunked.logs(deployment.card_token, topics, start, end) == expected
    spans = [
        int(q["params"][0]["toBlock"], 16) - int(q["params"][0]["fromBlock"], 16) + 1
        for q in provider.requests
        if q["method"] == "eth_getLogs"
    ]
    assert (
        spans[:2] == [8, 4]
        and max(spans[2:]) <= 2
        and sum(s for s in spans if s <= 3) == (end - start + 1)
    )

    provider.max_range = 0  # not even one block: the error is the provider's
    with pytest.raises(RpcError, match="more than 10000 results"):
        chunked.logs(deployment.card_token, topics, start, end)


def test_a_thread_deferring_chain_reads_sends_nothing(proxy: tuple[str, Provider]) -> None:
    url, provider = proxy
    rpc = JsonRpc(url)
    with deferring_chain_reads():
        with pytest.raises(ChainReadDeferred, match="eth_blockNumber"):
            rpc.block_number()
        assert provider.requests == []
        elsewhere: list[int] = []  # another thread at the same time reads as usual
        reader = threading.Thread(target=lambda: elsewhere.append(rpc.block_number()))
        reader.start()
        reader.join(10)
        assert len(elsewhere) == 1 and len(provider.requests) == 1
    assert rpc.block_number() == elsewhere[0]  # the same thread, once its work is done
    assert len(provider.requests) == 2
    rpc.close()
