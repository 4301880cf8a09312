"""Digest signatures: what eth-account signs recovers to the key's address (public APIs only)."""

from __future__ import annotations

import os

import pytest
from eth_account import Account

from ledger.errors import InvalidInput
from ledger.protocol import signatures
from ledger.protocol.signatures import (
    SECP256K1_N,
    recover_digest_signer,
    recover_low_s_address,
    recover_low_s_signer,
    recover_vrs,
    sign_digest,
)


def test_a_signature_recovers_to_its_signer_in_every_accepted_form() -> None:
    account = Account.create()
    digest = os.urandom(32)
    signature = sign_digest(account.key, digest)
    assert signature[64] in (27, 28)
    assert recover_digest_signer(digest, signature) == account.address
    assert recover_digest_signer(digest, "0x" + signature.hex()) == account.address
    zero_one = signature[:64] + bytes([signature[64] - 27])
    assert recover_digest_signer(digest, zero_one) == account.address
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    assert recover_vrs(digest, signature[64] - 27, r, s) == account.address


def test_another_digest_recovers_someone_else() -> None:
    account = Account.create()
    signature = sign_digest(account.key, os.urandom(32))
    assert recover_digest_signer(os.urandom(32), signature) != account.address


@pytest.mark.parametrize(
    "signature", [b"", b"\x01" * 64, b"\x01" * 64 + b"\x05", b"\x00" * 65, "0x1234", "not hex"]
)
def test_what_is_no_signature_is_invalid_input(signature: bytes | str) -> None:
    with pytest.raises(InvalidInput) as refused:
        recover_digest_signer(os.urandom(32), signature)
    assert refused.value.extra["field"] == "signature"


def test_the_low_s_form_is_the_only_one_accepted() -> None:
    account = Account.create()
    digest = os.urandom(32)
    signature = sign_digest(account.key, digest)
    assert recover_low_s_signer(digest, signature) == account.address
    assert recover_low_s_address(digest, signature) == bytes.fromhex(account.address[2:])
    s = int.from_bytes(signature[32:64], "big")
    twin = signature[:32] + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - signature[64]])
    assert recover_digest_signer(digest, twin) == account.address  # the same key's high-s twin
    with pytest.raises(InvalidInput, match="low-s"):
        recover_low_s_signer(digest, twin)


def test_an_r_that_is_no_curve_point_and_a_short_digest_are_invalid_input() -> None:
    # r = 5 is no x coordinate of a secp256k1 point (5**3 + 7 = 132 is no square mod p)
    no_point = (5).to_bytes(32, "big") + (1).to_bytes(32, "big") + b"\x1b"
    with pytest.raises(InvalidInput, match="failed to recover"):
        recover_digest_signer(os.urandom(32), no_point)
    signature = sign_digest(Account.create().key, os.urandom(32))
    with pytest.raises(InvalidInput, match="32 bytes"):
        recover_digest_signer(os.urandom(31), signature)


def test_recovery_answers_the_same_once_its_address_memory_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signatures, "_ADDRESSES_KEPT", 2)
    signatures._ADDRESSES.clear()
    accounts = [Account.create() for _ in range(5)]
    digest = os.urandom(32)
    signed = [(a.address, sign_digest(a.key, digest)) for a in accounts]
    for _ in range(2):
        for address, signature in signed:
            assert recover_low_s_signer(digest, signature) == address
            assert len(signatures._ADDRESSES) <= 2
