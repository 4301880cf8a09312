"""Errors by name: every custom error of CardExchange and CardToken (OpenZeppelin's ERC-1155
errors included) decodes from revert data to its name and its arguments by name."""

from __future__ import annotations

from typing import Any

import pytest
from eth_abi import encode
from eth_hash.auto import keccak

from ledger.chain.artifacts import canonical_type, explain_revert, load_artifact


def _sample(kind: str) -> Any:
    if kind == "address":
        return "0x" + "ab" * 20
    if kind.startswith("uint"):
        return 200 if kind in ("uint8", "uint48") else 12345678901234567890
    if kind == "bool":
        return True
    if kind == "bytes32":
        return b"\x11" * 32
    if kind == "string":
        return "too long"
    raise AssertionError(kind)


ERRORS = [
    (name, item)
    for name in ("CardExchange", "CardToken")
    for item in load_artifact(name).abi
    if item["type"] == "error"
]


@pytest.mark.parametrize(("contract", "item"), ERRORS, ids=[i["name"] for _, i in ERRORS])
def test_every_error_decodes_by_name_with_named_arguments(
    contract: str, item: dict[str, Any]
) -> None:
    types = [canonical_type(p) for p in item["inputs"]]
    values = [_sample(t) for t in types]
    data = keccak(f"{item['name']}({','.join(types)})".encode())[:4] + encode(types, values)
    revert = explain_revert(data)
    assert revert is not None and revert.name == item["name"]
    assert list(revert.args) == [p["name"] for p in item["inputs"]]
    for kind, shown in zip(types, revert.args.values(), strict=True):
        if kind == "address":
            assert shown == "0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB"
        elif kind.startswith("uint"):
            assert shown == str(_sample(kind))
    assert revert.text().startswith(item["name"] + "(")


def test_the_issues_examples() -> None:
    names = {item["name"] for _, item in ERRORS}
    assert {
        "CardExchangeWrongTaker",
        "CardExchangeNonceAlreadyUsed",
        "ERC1155MissingApprovalForAll",
    } <= names
    data = keccak(b"ERC1155MissingApprovalForAll(address,address)")[:4] + encode(
        ["address", "address"], ["0x" + "11" * 20, "0x" + "22" * 20]
    )
    assert data[:4].hex() == "e237d922"  # the raw selector the issue quotes
    revert = explain_revert(data)
    assert revert is not None
    assert revert.as_dict() == {
        "name": "ERC1155MissingApprovalForAll",
        "args": {
            "operator": "0x1111111111111111111111111111111111111111",
            "owner": "0x2222222222222222222222222222222222222222",
        },
    }


def test_unknown_revert_data_is_none() -> None:
    assert explain_revert(b"\xde\xad\xbe\xef") is None
    assert explain_revert(b"") is None
