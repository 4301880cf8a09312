"""EIP-712: every MetaLedger struct's digest (hand-encoded words, cached domain separator) equals
eth-account's generic encoder over its typed data, and signatures recover to the signer."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.protocol import eip712
from ledger.protocol.signatures import recover_low_s_signer
from ledger.protocol.signedmoves import (
    EntryChain,
    MatchAction,
    MatchEnd,
    MatchReceipt,
    SeatAuthorization,
    canonical_action,
    genesis_hash,
)

CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def _structs() -> list[eip712.TypedStruct]:
    key = Account.create()
    return [
        eip712.MatchResult(
            os.urandom(32),
            "metax",
            "metax-2018.06",
            key.address,
            key.address,
            os.urandom(32),
            os.urandom(32),
            os.urandom(32),
            os.urandom(32),
            os.urandom(32),
            eip712.ZERO_ADDRESS,
            7,
        ),
        SeatAuthorization(
            os.urandom(32),
            "metamasters",
            "mm-1",
            1,
            os.urandom(32),
            os.urandom(32),
            key.address,
            2**64 - 1,
        ),
        MatchAction(
            os.urandom(32),
            0,
            2**32 - 1,
            os.urandom(32),
            canonical_action(["play", 3]),
            os.urandom(32),
        ),
        MatchAction(
            os.urandom(32),
            1,
            0,
            os.urandom(32),
            canonical_action(["x", "1.actor.0", -2]),
            os.urandom(32),
        ),
        MatchReceipt(os.urandom(32), 12, os.urandom(32)),
        MatchEnd(os.urandom(32), 200, os.urandom(32)),
    ]


@pytest.mark.parametrize("struct", _structs(), ids=lambda s: type(s).__name__)
def test_digest_equals_eth_accounts_encoder(struct: eip712.TypedStruct) -> None:
    typed = eip712.typed_data(struct, 31337, CONTRACT)
    ours = eip712.digest(struct, 31337, CONTRACT)
    assert ours == _eth_account_digest(typed)
    assert eip712.digest(struct, 1, CONTRACT) != ours
    assert type(struct).from_message(struct.as_message()) == struct
    account = Account.create()
    signed = Account.sign_typed_data(account.key, full_message=typed)
    assert recover_low_s_signer(ours, bytes(signed.signature)) == account.address


@pytest.mark.parametrize("struct", _structs(), ids=lambda s: type(s).__name__)
def test_a_record_is_the_fields_by_name_with_bytes32_as_hex(struct: eip712.TypedStruct) -> None:
    record = struct.as_record()
    message = struct.as_message()
    # the same values as the message, in field order, under the dataclass names
    assert list(record.values()) == list(message.values())
    assert all(not isinstance(v, bytes) for v in record.values())
    assert type(struct).from_record(SimpleNamespace(**record)) == struct


def _eth_account_digest(typed: dict[str, object]) -> bytes:
    from eth_utils import keccak

    message = encode_typed_data(full_message=typed)
    return keccak(b"\x19" + message.version + message.header + message.body)


def test_fields_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        MatchAction(os.urandom(32), 256, 0, os.urandom(32), "[]", os.urandom(32))
    with pytest.raises(ValueError, match="index"):
        MatchReceipt(os.urandom(32), -1, os.urandom(32))


def test_the_chain_helpers_are_the_struct_digests() -> None:
    match_id, prev = os.urandom(32), os.urandom(32)
    chain = EntryChain(match_id, 31337, CONTRACT)
    action = canonical_action(["keep"])
    assert action == '["keep"]'
    salt = os.urandom(32)
    assert chain.entry_hash(0, 5, prev, action, salt) == eip712.digest(
        MatchAction(match_id, 0, 5, prev, action, salt), 31337, CONTRACT
    )
    assert chain.receipt_digest(5, prev) == eip712.digest(
        MatchReceipt(match_id, 5, prev), 31337, CONTRACT
    )
    assert chain.end_digest(9, prev) == eip712.digest(MatchEnd(match_id, 9, prev), 31337, CONTRACT)
    a, b = os.urandom(32), os.urandom(32)
    assert genesis_hash(match_id, (a, b), 7) != genesis_hash(match_id, (b, a), 7)
    assert genesis_hash(match_id, (a, b), 7) != genesis_hash(match_id, (a, b), 8)


_BYTES32 = st.binary(min_size=32, max_size=32)


@settings(max_examples=60, deadline=None)
@given(
    match_id=_BYTES32,
    seat=st.integers(0, 255),
    index=st.integers(0, 2**32 - 1),
    prev=_BYTES32,
    action=st.text(max_size=80),
    salt=_BYTES32,
    chain_id=st.integers(1, 2**64),
)
def test_move_and_receipt_digests_equal_eth_accounts_for_any_values(
    match_id: bytes, seat: int, index: int, prev: bytes, action: str, salt: bytes, chain_id: int
) -> None:
    """The per-move digests (entry hash and receipt: the precompiled word encoders) are
    eth-account's encode_typed_data hashes for random values."""
    chain = EntryChain(match_id, chain_id, CONTRACT)
    entry = MatchAction(match_id, seat, index, prev, action, salt)
    entry_hash = chain.entry_hash(seat, index, prev, action, salt)
    assert entry_hash == _eth_account_digest(eip712.typed_data(entry, chain_id, CONTRACT))
    receipt = MatchReceipt(match_id, index, entry_hash)
    assert chain.receipt_digest(index, entry_hash) == _eth_account_digest(
        eip712.typed_data(receipt, chain_id, CONTRACT)
    )
