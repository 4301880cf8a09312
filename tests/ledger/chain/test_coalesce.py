"""Concurrent ownership reads at one pinned block go to the node together: one merged
balanceOfBatch (or a few), each caller getting exactly its own balances."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from eth_account import Account

from ledger.chain.client import ChainClient
from ledger.chain.coalesce import BalanceCoalescer
from ledger.chain.deployment import Deployment, load_addresses
from ledger.chain.transport import BlockId, ChainReadDeferred, deferring_chain_reads
from ledger.devstack.anvil import AnvilNode
from ledger.protocol.tokenids import token_id

pytestmark = pytest.mark.chain


def test_concurrent_reads_share_calls_and_get_their_own_balances(
    evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    from tests.api.conftest import mint

    owners = [Account.create().address for _ in range(12)]
    cards = ("U92-JL", "B-INT-2", "B-INT-3")
    ids = [token_id("metax", c) for c in cards]
    mint(
        evm_snapshot,
        deployment,
        {o: {("metax", c): k + 1 for c in cards} for k, o in enumerate(owners)},
    )
    path = tmp_path / "d.json"
    deployment.save(path)
    client = ChainClient(evm_snapshot.rpc_url, load_addresses(path))
    pin = client.head(fresh=True)
    start = threading.Barrier(len(owners))

    def read(k: int) -> list[int]:
        start.wait()
        return client.balances([owners[k]] * len(ids), ids, pin)

    with ThreadPoolExecutor(len(owners)) as pool:
        got = list(pool.map(read, range(len(owners))))
    client.close()
    assert got == [[k + 1] * len(ids) for k in range(len(owners))]
    reads = client._reads
    assert reads.reads == len(owners) and reads.calls < reads.reads, (reads.calls, reads.reads)


def test_a_failed_read_fails_every_caller_of_its_round_and_the_next_round_goes_on() -> None:
    release = threading.Event()
    calls: list[int] = []

    def node(owners: Sequence[str], ids: Sequence[int], _block: BlockId) -> list[int]:
        calls.append(len(ids))
        if len(calls) == 1:
            release.wait(5)  # the first round is on the wire while the others queue
            raise ConnectionError("node went away")
        return [int(o) * 10 + i for o, i in zip(owners, ids, strict=True)]

    reads = BalanceCoalescer(node, max_pairs=4)
    results: dict[int, object] = {}

    def caller(k: int) -> None:
        try:
            results[k] = reads.balances([str(k)] * 2, [1, 2], "latest")
        except ConnectionError as exc:
            results[k] = exc

    first = threading.Thread(target=caller, args=(0,))
    first.start()
    while not calls:
        threading.Event().wait(0.01)
    others = [threading.Thread(target=caller, args=(k,)) for k in range(1, 6)]
    for t in others:
        t.start()
    while reads.reads < 6:
        threading.Event().wait(0.01)
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert isinstance(results[0], ConnectionError)
    for k in range(1, 6):
        assert results[k] == [k * 10 + 1, k * 10 + 2]
    # 5 waiting callers of 2 pairs each, at most 4 pairs a round: 3 more rounds
    assert calls[0] == 2 and sorted(calls[1:]) == [2, 4, 4]


def test_a_thread_deferring_chain_reads_joins_no_round() -> None:
    read_for: list[int] = []

    def read(owners: Sequence[str], ids: Sequence[int], block: BlockId) -> list[int]:
        read_for.extend(ids)
        return [7] * len(ids)

    coalescer = BalanceCoalescer(read)
    with deferring_chain_reads(), pytest.raises(ChainReadDeferred, match="balanceOfBatch"):
        coalescer.balances(["0x" + "11" * 20], [1], 5)
    assert read_for == [] and coalescer.reads == 0  # nothing read, nobody left waiting
    assert coalescer.balances(["0x" + "11" * 20], [1], 5) == [7]
