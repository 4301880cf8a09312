"""Seed commit-reveal formulas, against independent computations of the documented ones."""

from __future__ import annotations

import os

import pytest
from eth_abi import encode
from eth_hash.auto import keccak

from ledger.errors import InvalidInput
from ledger.protocol.seeds import commit_of, derive_seed, seed_commitments


def test_commit_is_keccak_of_the_secret() -> None:
    secret = os.urandom(32)
    assert commit_of(secret) == "0x" + keccak(secret).hex()


def test_the_seed_hashes_the_three_reveals_in_order() -> None:
    secrets = [os.urandom(32) for _ in range(3)]
    seed = derive_seed(*("0x" + s.hex() for s in secrets))
    assert seed == int.from_bytes(keccak(secrets[0] + secrets[1] + secrets[2]), "big")
    assert seed != derive_seed(*("0x" + s.hex() for s in reversed(secrets)))


def test_seed_commitments_is_keccak_of_abi_encode() -> None:
    commits = [os.urandom(32) for _ in range(3)]
    expected = keccak(encode(["bytes32", "bytes32", "bytes32"], commits))
    assert seed_commitments(*("0x" + c.hex() for c in commits)) == expected


def test_a_short_secret_is_refused_by_name() -> None:
    with pytest.raises(InvalidInput, match="player 1's secret must be 32 bytes"):
        derive_seed("0x" + "11" * 32, "0x" + "22" * 32, "0x" + "33" * 31)
