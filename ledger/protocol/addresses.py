"""The one reader of Ethereum addresses from input: 20 bytes as 0x-hex, EIP-55 checked.

All-lowercase and all-uppercase hex carry no checksum and are accepted; a mixed-case address must
be its EIP-55 checksum (a mistyped letter is caught, not silently read as another address).
Answers show addresses checksummed.
"""

from __future__ import annotations

import re

from eth_utils import to_checksum_address

from ledger.errors import InvalidInput

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


def parse_address(text: object, field: str = "address") -> str:
    """The checksummed form of address `text`; InvalidInput naming `field` if it is not 20
    bytes of 0x-hex or a mixed-case address with a wrong EIP-55 checksum."""
    if not isinstance(text, str) or _ADDRESS.fullmatch(text) is None:
        raise InvalidInput(f"{field} must be an address (20 bytes as 0x-hex)", field=field)
    checksummed = to_checksum_address(text)
    digits = text[2:]
    if digits != digits.lower() and digits != digits.upper() and text != checksummed:
        raise InvalidInput(
            f"{field} {text} has a wrong EIP-55 checksum (mixed case must be {checksummed})",
            field=field,
        )
    return checksummed
