"""The entry chain's directly packed digests are the EIP-712 digests of their structs, with the
same range checks."""

from __future__ import annotations

import os

import pytest

from ledger.errors import InvalidInput
from ledger.protocol.eip712 import digest
from ledger.protocol.signedmoves import EntryChain, MatchAction, MatchReceipt

CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def test_entry_and_receipt_digests_are_their_structs_digests() -> None:
    chain = EntryChain(os.urandom(32), 31337, CONTRACT)
    for seat, index, action in ((0, 0, '["pass"]'), (1, 2**32 - 1, '["play",3]'), (255, 7, "")):
        prev, salt = os.urandom(32), os.urandom(32)
        struct = MatchAction(chain.match_id, seat, index, prev, action, salt)
        assert chain.entry_hash(seat, index, prev, action, salt) == digest(struct, 31337, CONTRACT)
        assert chain.receipt_digest(index, prev) == digest(
            MatchReceipt(chain.match_id, index, prev), 31337, CONTRACT
        )
    assert chain.entry_hash(0, 0, "0x" + "11" * 32, "[]", "0x" + "22" * 32) == digest(
        MatchAction(chain.match_id, 0, 0, bytes([0x11] * 32), "[]", bytes([0x22] * 32)),
        31337,
        CONTRACT,
    )


@pytest.mark.parametrize(
    ("seat", "index", "action", "salt"),
    [(256, 0, "[]", bytes(32)), (0, 2**32, "[]", bytes(32)), (-1, 0, "[]", bytes(32)),
     (True, 0, "[]", bytes(32)), (0, 0, 5, bytes(32)), (0, 0, "[]", bytes(31))],
)  # fmt: skip
def test_out_of_range_fields_are_refused_as_the_struct_refuses_them(
    seat: object, index: object, action: object, salt: bytes
) -> None:
    chain = EntryChain(os.urandom(32), 31337, CONTRACT)
    with pytest.raises((ValueError, InvalidInput)):
        chain.entry_hash(seat, index, bytes(32), action, salt)  # type: ignore[arg-type]
    with pytest.raises((ValueError, InvalidInput)):
        MatchAction(chain.match_id, seat, index, bytes(32), action, salt)  # type: ignore[arg-type]
