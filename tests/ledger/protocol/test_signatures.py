"""Digest signatures: what eth-account signs recovers to the key's address (public APIs only)."""

from __future__ import annotations

import os

import pytest
from eth_account import Account

from ledger.errors import InvalidInput
from ledger.protocol.signatures import recover_digest_signer, recover_vrs, sign_digest


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
