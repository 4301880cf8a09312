"""The one hex reader: strict 0x-hex, exact lengths, InvalidInput naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.protocol.hexcodec import bytes32, from_hex, to_hex, uint256_hex


@given(st.binary(max_size=100))
def test_to_hex_and_from_hex_round_trip(data: bytes) -> None:
    assert from_hex(to_hex(data)) == data
    assert from_hex(to_hex(data).upper().replace("0X", "0x")) == data


@pytest.mark.parametrize(
    "text", ["", "00", "0x0", "0x 00", "0x0g", "0X00", "+0x00", " 0x00", "0x00\n"]
)
def test_anything_but_strict_even_0x_hex_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput, match="secret must be 0x-hex") as refused:
        from_hex(text, "secret")
    assert refused.value.extra == {"field": "secret"}


def test_a_required_length_is_exact() -> None:
    assert from_hex("0x" + "ab" * 32, "commit", length=32) == b"\xab" * 32
    for wrong in ("0x" + "ab" * 31, "0x" + "ab" * 33):
        with pytest.raises(InvalidInput, match="commit must be 32 bytes as 0x-hex"):
            from_hex(wrong, "commit", length=32)


def test_bytes32_takes_bytes_or_hex() -> None:
    raw = bytes(range(32))
    assert bytes32(raw) == raw == bytes32(to_hex(raw))
    with pytest.raises(InvalidInput, match="deck0 must be 32 bytes"):
        bytes32(raw[:31], "deck0")
    with pytest.raises(InvalidInput):
        bytes32(12345, "deck0")  # type: ignore[arg-type]


def test_uint256_hex_is_64_digits() -> None:
    assert uint256_hex(1) == "0x" + "0" * 63 + "1"
    assert uint256_hex(2**256 - 1) == "0x" + "f" * 64
    assert int(uint256_hex(123456789), 16) == 123456789
