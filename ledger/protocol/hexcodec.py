"""The one reader and writer of 0x-hex: bytes32 values, signatures, calldata, node replies.

Every hex string the project reads (a bundle field, an API body, a JSON-RPC reply) is parsed here,
strictly: a `0x` prefix, an even number of hex digits and nothing else (no spaces, no sign), and
the exact length where one is required. A refusal is an InvalidInput naming the field.
"""

from __future__ import annotations

from functools import lru_cache

from eth_utils import to_checksum_address

from ledger.errors import InvalidInput


def from_hex(text: str, field: str = "value", *, length: int | None = None) -> bytes:
    """The bytes of 0x-hex `text` (exactly `length` of them when given); InvalidInput naming
    `field` otherwise."""
    if not isinstance(text, str) or text[:2] != "0x":
        raise InvalidInput(_expected(field, length), field=field)
    try:
        data = bytes.fromhex(text[2:])
    except ValueError:
        raise InvalidInput(_expected(field, length), field=field) from None
    # fromhex skips ASCII whitespace (and refuses anything else that is not hex): two digits
    # per byte is exactly `0x(?:[0-9a-fA-F]{2})*`, without a regular expression
    if 2 * len(data) + 2 != len(text) or (length is not None and len(data) != length):
        raise InvalidInput(_expected(field, length), field=field)
    return data


def bytes32(value: bytes | str, field: str = "value") -> bytes:
    """A bytes32 value given as 32 bytes or as 0x-hex; InvalidInput naming `field` otherwise."""
    if isinstance(value, bytes | bytearray):
        if len(value) != 32:
            raise InvalidInput(_expected(field, 32), field=field)
        return bytes(value)
    return from_hex(value, field, length=32)


def to_hex(data: bytes) -> str:
    """Bytes as 0x-hex (lower case)."""
    return "0x" + bytes(data).hex()


def uint256_hex(value: int) -> str:
    """A uint256 as 0x-prefixed 64-digit hex (the form token ids are stored and shown in)."""
    return "0x" + value.to_bytes(32, "big").hex()


def _expected(field: str, length: int | None) -> str:
    if length is None:
        return f"{field} must be 0x-hex"
    return f"{field} must be {length} bytes as 0x-hex"


def checksum_address(address: str) -> str:
    """The EIP-55 checksummed form of a 20-byte hex address (remembered: an audit asks for the
    same few addresses thousands of times); ValueError if it is not an address."""
    if isinstance(address, str):
        return _checksum_text(address)
    return str(to_checksum_address(address))


@lru_cache(maxsize=65536)
def _checksum_text(address: str) -> str:
    return str(to_checksum_address(address))
