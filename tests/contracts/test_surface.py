"""The rest of the contracts' surface: EIP-712 domains and type hashes, role management, the
exchange's constructor check, and a guard that every external function, event and custom error is
exercised by these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from eth_abi import encode
from eth_hash.auto import keccak

from ledger.chain.artifacts import CONTRACT_NAMES, load_artifact
from ledger.protocol.eip712 import (
    MATCH_RESULT_TYPEHASH,
    OFFER_DOMAIN_NAME,
    OFFER_TYPEHASH,
    RESULT_DOMAIN_NAME,
    domain_separator,
)
from tests.contracts.conftest import Chain

ZERO32 = b"\x00" * 32


@pytest.mark.chain
def test_eip712_domains_and_type_hashes(chain: Chain) -> None:
    d = chain.deployment
    for c, name in ((chain.ledger, RESULT_DOMAIN_NAME), (chain.exchange, OFFER_DOMAIN_NAME)):
        fields, got_name, version, chain_id, verifying, salt, extensions = (
            c.functions.eip712Domain().call()
        )
        assert (fields, got_name, version, chain_id, verifying) == (
            b"\x0f",
            name,
            "1",
            d.chain_id,
            c.address,
        )
        assert (salt, extensions) == (ZERO32, [])
        # the separator the Python digests use is the EIP-712 hash of exactly these fields
        expected = keccak(
            encode(
                ["bytes32", "bytes32", "bytes32", "uint256", "address"],
                [
                    keccak(
                        b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
                    ),
                    keccak(got_name.encode()),
                    keccak(version.encode()),
                    chain_id,
                    verifying,
                ],
            )
        )
        assert domain_separator(name, d.chain_id, c.address) == expected
    assert chain.ledger.functions.MATCH_RESULT_TYPEHASH().call() == MATCH_RESULT_TYPEHASH
    assert chain.exchange.functions.OFFER_TYPEHASH().call() == OFFER_TYPEHASH


@pytest.mark.chain
def test_role_management_events(chain: Chain) -> None:
    token, ledger = chain.token, chain.ledger
    minter = token.functions.MINTER_ROLE().call()
    anchorer_role = ledger.functions.ANCHORER_ROLE().call()
    assert token.functions.getRoleAdmin(minter).call() == ZERO32
    assert ledger.functions.getRoleAdmin(anchorer_role).call() == ZERO32
    bob = chain.collectors[1]
    chain.send(ledger, "grantRole", anchorer_role, bob, sender=chain.publisher)
    receipt = chain.send(ledger, "revokeRole", anchorer_role, bob, sender=chain.publisher)
    assert dict(chain.events(ledger, receipt, "RoleRevoked")[0]) == {
        "role": anchorer_role,
        "account": bob,
        "sender": chain.publisher,
    }
    chain.assert_reverts(
        ledger,
        "anchor",
        (1, b"\x01" * 32, 1, ZERO32),
        bob,
        "AccessControlUnauthorizedAccount",
        bob,
        anchorer_role,
    )
    # the anchorer can step down; nobody can renounce for someone else
    chain.assert_reverts(
        ledger, "renounceRole", (anchorer_role, chain.anchorer), bob, "AccessControlBadConfirmation"
    )
    receipt = chain.send(
        ledger, "renounceRole", anchorer_role, chain.anchorer, sender=chain.anchorer
    )
    assert chain.events(ledger, receipt, "RoleRevoked")[0]["account"] == chain.anchorer
    assert not ledger.functions.hasRole(anchorer_role, chain.anchorer).call()


@pytest.mark.chain
def test_exchange_refuses_a_card_token_without_code(chain: Chain) -> None:
    artifact = load_artifact("CardExchange")
    factory = chain.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)  # type: ignore[call-overload]
    eoa = chain.collectors[0]
    initcode = bytes.fromhex(factory.constructor(eoa).data_in_transaction.removeprefix("0x"))
    reply = chain.raw_call({"from": chain.publisher, "data": "0x" + initcode.hex()})
    data = bytes.fromhex(reply["error"]["data"].removeprefix("0x"))
    assert artifact.decode_error(data) == ("CardExchangeInvalidCardToken", (eoa.lower(),))


@pytest.mark.chain
def test_total_supply_over_all_ids(chain: Chain) -> None:
    chain.editions([901, 902])
    before = chain.token.functions.totalSupply().call()
    chain.send(
        chain.token,
        "mintBatch",
        chain.collectors[0],
        [901, 902],
        [3, 4],
        b"",
        sender=chain.publisher,
    )
    assert chain.token.functions.totalSupply().call() == before + 7


#: Declared in the ABIs (inherited from OpenZeppelin) but unreachable through these contracts.
UNREACHABLE = {
    "ERC1155InvalidSender": "only mint/burn paths check it and there is no burn; transfers check approval first",
    "ERC1155InvalidApprover": "the approver is always msg.sender, never the zero address",
    "RoleAdminChanged": "no role admin is ever changed (every role's admin is DEFAULT_ADMIN_ROLE)",
    "CheckpointUnorderedInsertion": "signer checkpoints are keyed by block.number, which never decreases",
    "SafeCastOverflowedUintDowncast": "block.number won't reach 2**40 on a test chain; the forge test test_RevertWhen_BlockNumberBeyond40Bits covers it",
    "InvalidShortString": "EIP-712 name and version are constants shorter than 32 bytes",
    "StringTooLong": "EIP-712 name and version are constants shorter than 32 bytes",
    "EIP712DomainChanged": "the EIP-712 domain is immutable",
}


def test_every_function_event_and_error_is_exercised() -> None:
    """Each ABI function, event and custom error of the three contracts is named in the other
    test modules (a name-level guard against untested surface), except the UNREACHABLE ones."""
    here = Path(__file__).parent
    text = "\n".join(
        p.read_text() for p in sorted(here.glob("test_*.py")) if p.name != Path(__file__).name
    )
    text += Path(__file__).read_text().split("UNREACHABLE = {")[0]  # this module's tests above
    missing = [
        f"{name}.{item['name']} ({item['type']})"
        for name in CONTRACT_NAMES
        for item in load_artifact(name).abi
        if item["type"] in ("function", "event", "error")
        and item["name"] not in UNREACHABLE
        and item["name"] not in text
    ]
    assert not missing, f"not exercised by tests/contracts: {missing}"
