"""The lean keccak256 gives eth-hash's answers (block boundaries, empty and odd inputs)."""

from __future__ import annotations

import os
import threading

from eth_hash.auto import keccak as eth_hash_keccak

from ledger.protocol.keccak import keccak


def test_keccak_matches_eth_hash_at_every_block_boundary() -> None:
    for size in (0, 1, 31, 32, 33, 64, 135, 136, 137, 271, 272, 273, 1000, 10_000):
        data = os.urandom(size)
        assert keccak(data) == eth_hash_keccak(data), size
    assert keccak(b"") == bytes.fromhex(
        "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    )
    assert keccak(bytearray(b"abc")) == eth_hash_keccak(b"abc")


def test_threads_keep_their_own_sponge() -> None:
    inputs = [os.urandom(n) for n in range(0, 400, 7)]
    expected = [eth_hash_keccak(d) for d in inputs]
    wrong: list[int] = []

    def work() -> None:
        for _ in range(20):
            for i, d in enumerate(inputs):
                if keccak(d) != expected[i]:
                    wrong.append(i)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
