"""The audit's view of the chain pinned to one block (`SnapshotRpc`) on a real Anvil: reads
asked ahead in one JSON-RPC batch are remembered as the very answers each gives alone, and a read
the node refuses, or a batch a provider refuses, is left to `call`, which asks it alone and
reports it as it would have."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.snapshot import SnapshotRpc
from ledger.chain.transport import JsonRpc, RpcError
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.rpcproxy import JsonAnswerHandler
from tests.fixtures.chain import account_with_code

pytestmark = pytest.mark.chain

#: runtime code that reverts on any call
REVERTS = "0x60006000fd"


class _Counted(SnapshotRpc):
    """A SnapshotRpc that counts its HTTP requests."""

    posts = 0

    def _post(self, method: str, body: bytes) -> bytes:
        self.posts += 1
        return super()._post(method, body)


def test_reads_asked_ahead_are_one_request_and_the_answers_asked_alone(
    evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    reverting = account_with_code(evm_snapshot, REVERTS)
    plain = JsonRpc(evm_snapshot.rpc_url)
    snapshot = _Counted(evm_snapshot.rpc_url)
    snapshot.pin()
    pinned, ahead = (
        MatchLedger(plain, deployment.match_ledger),
        MatchLedger(snapshot, deployment.match_ledger),
    )
    proofs: list[tuple[int, bytes, list[bytes]]] = [
        (1, b"\x11" * 32, []),
        (2, b"\x22" * 32, [b"\x33" * 32]),
    ]
    reads: list[tuple[str, tuple[Any, ...]]] = [ahead.verify_result_read(*p) for p in proofs]
    reads += [
        reads[0],  # asked once
        ("eth_getBlockByNumber", ("0x0", False)),
        ("eth_call", ({"to": reverting, "data": "0x"}, "latest")),  # refused: not remembered
        ("eth_sendRawTransaction", ("0x00",)),  # not a read: not asked
    ]
    before = snapshot.posts
    assert snapshot.prefetch(reads) == 3
    assert snapshot.posts == before + 1

    for p in proofs:
        assert ahead.verify_result(*p) == pinned.verify_result(*p)
    assert snapshot.block(0) == plain.block(0)
    assert snapshot.posts == before + 1 and snapshot.hits == 3  # all three from the batch
    # the refused read is asked again, alone, and fails as it fails without the batch
    with pytest.raises(RpcError) as alone:
        plain.eth_call(reverting, b"")
    with pytest.raises(RpcError) as after_batch:
        snapshot.eth_call(reverting, b"")
    assert str(after_batch.value) == str(alone.value)
    assert snapshot.posts == before + 2
    assert snapshot.prefetch(reads[:2]) == 0 and snapshot.posts == before + 2  # known: no request
    plain.close()
    snapshot.close()


@pytest.fixture
def no_batches(evm_snapshot: AnvilNode) -> Iterator[str]:
    """A provider in front of the Anvil that answers HTTP 400 to every JSON-RPC batch (as some
    public ones do) and passes single calls on."""

    class Handler(JsonAnswerHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if body.lstrip().startswith(b"["):
                self.answer(400, b'{"error": "batch requests are not supported"}')
                return
            self.forward(evm_snapshot.rpc_url, body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_provider_that_refuses_batches_is_asked_each_read_alone(
    no_batches: str, deployment: Deployment
) -> None:
    snapshot = SnapshotRpc(no_batches)
    snapshot.pin()
    ledger = MatchLedger(snapshot, deployment.match_ledger)
    reads = [ledger.verify_result_read(1, b"\x11" * 32, []), ("eth_chainId", ())]
    assert snapshot.prefetch(reads) == 0
    assert ledger.verify_result(1, b"\x11" * 32, []) is False
    assert snapshot.chain_id() == 31337
    assert snapshot.hits == 0
    snapshot.close()
