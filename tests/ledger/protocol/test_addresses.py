"""The one address reader: EIP-55 checksums enforced on mixed case."""

from __future__ import annotations

import pytest

from ledger.errors import InvalidInput
from ledger.protocol.addresses import parse_address

GOOD = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def test_checksummed_lower_and_upper_case_are_read() -> None:
    assert parse_address(GOOD) == GOOD
    assert parse_address(GOOD.lower()) == GOOD
    assert parse_address("0x" + GOOD[2:].upper()) == GOOD


@pytest.mark.parametrize(
    "bad", ["0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x1234", GOOD + "00", "f39F" * 10, 5]
)
def test_a_wrong_checksum_or_shape_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_address(bad, "offer.maker")
    assert refused.value.extra["field"] == "offer.maker"
