"""CardToken on a real Anvil: roles, minting within edition sizes, URI, ERC-1155 conformance, events."""

from __future__ import annotations

import pytest

from ledger.protocol.tokenids import token_id, token_id_hex
from tests.contracts.conftest import Chain

pytestmark = pytest.mark.chain

MINTER_ROLE = bytes.fromhex("9f2df0fed2c77648de5860a4cc508cd0818c85b8b8a1ab4ceeef8d981c8956a6")


@pytest.mark.parametrize(
    ("game", "card_id"),
    [
        ("metax", "U92-JL"),
        ("metamasters", "MM-001"),
        ("metaversus", "Wishing Star"),
        ("metax", ""),
        ("g", "ü-∞"),
    ],
)
def test_python_token_id_agrees_with_solidity(chain: Chain, game: str, card_id: str) -> None:
    assert chain.token.functions.tokenId(game, card_id).call() == token_id(game, card_id)
    assert int(token_id_hex(game, card_id), 16) == token_id(game, card_id)


def test_token_id_example_from_developers_md() -> None:
    from eth_hash.auto import keccak

    assert token_id("metax", "U92-JL") == int.from_bytes(keccak(b"metax:U92-JL"), "big")
    with pytest.raises(ValueError):
        token_id("meta:x", "1")


def test_roles_granted_to_publisher(chain: Chain) -> None:
    t = chain.token.functions
    for role in (t.DEFAULT_ADMIN_ROLE().call(), t.MINTER_ROLE().call(), t.URI_SETTER_ROLE().call()):
        assert t.hasRole(role, chain.publisher).call()
    assert t.MINTER_ROLE().call() == MINTER_ROLE
    assert t.defaultAdmin().call() == t.owner().call() == chain.publisher
    assert t.defaultAdminDelay().call() == 0  # the settings' delay on chain 31337


def test_mint_emits_transfer_single_and_updates_supply(chain: Chain) -> None:
    alice = chain.collectors[0]
    tid = token_id("metax", "U92-JL")
    chain.editions([tid])
    receipt = chain.send(chain.token, "mint", alice, tid, 3, b"", sender=chain.publisher)
    (event,) = chain.events(chain.token, receipt, "TransferSingle")
    assert (event["operator"], event["to"], event["id"], event["value"]) == (
        chain.publisher,
        alice,
        tid,
        3,
    )
    assert event["from"] == "0x" + "00" * 20
    t = chain.token.functions
    assert t.balanceOf(alice, tid).call() == 3
    assert t.totalSupply(tid).call() == 3
    assert t.exists(tid).call()


def test_mint_batch_emits_transfer_batch(chain: Chain) -> None:
    alice = chain.collectors[0]
    ids = [token_id("metamasters", f"C{i}") for i in range(4)]
    chain.editions(ids)
    receipt = chain.send(
        chain.token, "mintBatch", alice, ids, [1, 2, 3, 4], b"", sender=chain.publisher
    )
    (event,) = chain.events(chain.token, receipt, "TransferBatch")
    assert list(event["ids"]) == ids and list(event["values"]) == [1, 2, 3, 4]
    assert chain.token.functions.balanceOfBatch([alice] * 4, ids).call() == [1, 2, 3, 4]


def test_revert_when_minting_without_minter_role(chain: Chain) -> None:
    bob = chain.collectors[1]
    for fn, args in (("mint", (bob, 1, 1, b"")), ("mintBatch", (bob, [1], [1], b""))):
        chain.assert_reverts(
            chain.token, fn, args, bob, "AccessControlUnauthorizedAccount", bob, MINTER_ROLE
        )


def test_granted_minter_can_mint(chain: Chain) -> None:
    bob = chain.collectors[1]
    receipt = chain.send(chain.token, "grantRole", MINTER_ROLE, bob, sender=chain.publisher)
    assert chain.events(chain.token, receipt, "RoleGranted")[0]["account"] == bob
    chain.editions([5])
    chain.send(chain.token, "mint", bob, 5, 1, b"", sender=bob)
    assert chain.token.functions.balanceOf(bob, 5).call() == 1


def test_max_supply_set_once_and_enforced(chain: Chain) -> None:
    alice = chain.collectors[0]
    tid = token_id("metaversus", "Legend")
    receipt = chain.send(chain.token, "setMaxSupply", tid, 5, sender=chain.publisher)
    (event,) = chain.events(chain.token, receipt, "MaxSupplySet")
    assert (event["id"], event["maxSupply"]) == (tid, 5)
    assert chain.token.functions.maxSupply(tid).call() == 5
    chain.send(chain.token, "mint", alice, tid, 4, b"", sender=chain.publisher)
    chain.assert_reverts(
        chain.token,
        "mint",
        (alice, tid, 2, b""),
        chain.publisher,
        "CardTokenMaxSupplyExceeded",
        tid,
        6,
        5,
    )
    chain.editions([7])
    chain.assert_reverts(
        chain.token,
        "mintBatch",
        (alice, [7, tid], [1, 2], b""),
        chain.publisher,
        "CardTokenMaxSupplyExceeded",
        tid,
        6,
        5,
    )
    chain.send(chain.token, "mint", alice, tid, 1, b"", sender=chain.publisher)
    assert chain.token.functions.totalSupply(tid).call() == 5
    chain.assert_reverts(
        chain.token,
        "setMaxSupply",
        (tid, 9),
        chain.publisher,
        "CardTokenMaxSupplyAlreadySet",
        tid,
        5,
    )


def test_minting_needs_an_edition_size_first(chain: Chain) -> None:
    alice = chain.collectors[0]
    p = chain.publisher
    chain.assert_reverts(chain.token, "mint", (alice, 77, 3, b""), p, "CardTokenNoMaxSupply", 77)
    chain.editions([76])
    chain.assert_reverts(
        chain.token, "mintBatch", (alice, [76, 77], [1, 1], b""), p, "CardTokenNoMaxSupply", 77
    )
    assert chain.token.functions.totalSupply(76).call() == 0
    receipt = chain.send(chain.token, "setMaxSupplyBatch", [77, 78], [3, 4], sender=p)
    events = chain.events(chain.token, receipt, "MaxSupplySet")
    assert [(e["id"], e["maxSupply"]) for e in events] == [(77, 3), (78, 4)]
    chain.send(chain.token, "mint", alice, 77, 3, b"", sender=p)
    assert chain.token.functions.balanceOf(alice, 77).call() == 3


def test_max_supply_invalid_values(chain: Chain) -> None:
    alice = chain.collectors[0]
    p = chain.publisher
    chain.assert_reverts(
        chain.token, "setMaxSupply", (78, 0), p, "CardTokenInvalidMaxSupply", 78, 0
    )
    chain.assert_reverts(
        chain.token,
        "setMaxSupplyBatch",
        ([78, 79], [1]),
        p,
        "CardTokenInvalidArrayLength",
        2,
        1,
    )
    admin_role = b"\x00" * 32
    # the minter (or anyone but the admin) can't set edition sizes
    chain.send(chain.token, "grantRole", MINTER_ROLE, alice, sender=p)
    for fn, args in (("setMaxSupply", (78, 1)), ("setMaxSupplyBatch", ([78], [1]))):
        chain.assert_reverts(
            chain.token, fn, args, alice, "AccessControlUnauthorizedAccount", alice, admin_role
        )


def test_uri_follows_erc1155_convention_and_setter_role(chain: Chain) -> None:
    assert "{id}" in chain.token.functions.uri(1).call()
    receipt = chain.send(chain.token, "setURI", "ipfs://cards/{id}.json", sender=chain.publisher)
    assert (
        chain.events(chain.token, receipt, "BaseURIChanged")[0]["newURI"]
        == "ipfs://cards/{id}.json"
    )
    assert chain.token.functions.uri(123).call() == "ipfs://cards/{id}.json"
    alice = chain.collectors[0]
    role = chain.token.functions.URI_SETTER_ROLE().call()
    chain.assert_reverts(
        chain.token, "setURI", ("x",), alice, "AccessControlUnauthorizedAccount", alice, role
    )


def test_supports_interface(chain: Chain) -> None:
    from eth_hash.auto import keccak

    s = chain.token.functions.supportsInterface
    for interface in ("d9b67a26", "0e89341c", "7965db0b", "01ffc9a7"):
        assert s(bytes.fromhex(interface)).call()
    # IAccessControlDefaultAdminRules: the XOR of its own functions' selectors
    admin_rules = 0
    for signature in (
        "defaultAdmin()",
        "pendingDefaultAdmin()",
        "defaultAdminDelay()",
        "pendingDefaultAdminDelay()",
        "beginDefaultAdminTransfer(address)",
        "cancelDefaultAdminTransfer()",
        "acceptDefaultAdminTransfer()",
        "changeDefaultAdminDelay(uint48)",
        "rollbackDefaultAdminDelay()",
        "defaultAdminDelayIncreaseWait()",
    ):
        admin_rules ^= int.from_bytes(keccak(signature.encode())[:4], "big")
    assert s(admin_rules.to_bytes(4, "big")).call()
    assert not s(bytes.fromhex("ffffffff")).call()


def test_transfers_approvals_and_their_reverts(chain: Chain) -> None:
    alice, bob, carol = chain.collectors[:3]
    chain.editions([1, 2])
    chain.send(chain.token, "mintBatch", alice, [1, 2], [5, 5], b"", sender=chain.publisher)
    receipt = chain.send(chain.token, "safeTransferFrom", alice, bob, 1, 2, b"", sender=alice)
    assert chain.events(chain.token, receipt, "TransferSingle")[0]["value"] == 2
    receipt = chain.send(
        chain.token, "safeBatchTransferFrom", alice, bob, [1, 2], [1, 1], b"", sender=alice
    )
    assert list(chain.events(chain.token, receipt, "TransferBatch")[0]["values"]) == [1, 1]
    assert chain.token.functions.balanceOfBatch([alice, bob], [1, 1]).call() == [2, 3]
    # operator approval
    chain.assert_reverts(
        chain.token,
        "safeTransferFrom",
        (alice, carol, 1, 1, b""),
        carol,
        "ERC1155MissingApprovalForAll",
        carol,
        alice,
    )
    receipt = chain.send(chain.token, "setApprovalForAll", carol, True, sender=alice)
    assert chain.events(chain.token, receipt, "ApprovalForAll")[0]["approved"] is True
    assert chain.token.functions.isApprovedForAll(alice, carol).call()
    chain.send(chain.token, "safeTransferFrom", alice, carol, 1, 1, b"", sender=carol)
    chain.assert_reverts(
        chain.token,
        "safeTransferFrom",
        (alice, bob, 1, 9, b""),
        alice,
        "ERC1155InsufficientBalance",
        alice,
        1,
        9,
        1,
    )
    chain.assert_reverts(
        chain.token,
        "safeBatchTransferFrom",
        (alice, bob, [1, 2], [1], b""),
        alice,
        "ERC1155InvalidArrayLength",
        2,
        1,
    )
    zero = "0x" + "00" * 20
    chain.assert_reverts(
        chain.token, "setApprovalForAll", (zero, True), alice, "ERC1155InvalidOperator", zero
    )
    chain.assert_reverts(
        chain.token,
        "safeTransferFrom",
        (alice, zero, 2, 1, b""),
        alice,
        "ERC1155InvalidReceiver",
        zero,
    )


def test_receiver_hooks(chain: Chain) -> None:
    # a contract that implements the hooks receives; one that doesn't (the exchange) is refused
    wallet = chain.deploy("ERC1271WalletMock", chain.collectors[0])
    chain.editions([3])
    receipt = chain.send(chain.token, "mint", wallet.address, 3, 2, b"", sender=chain.publisher)
    assert chain.token.functions.balanceOf(wallet.address, 3).call() == 2
    assert receipt["status"] == 1
    exchange = chain.exchange.address
    chain.assert_reverts(
        chain.token,
        "mint",
        (exchange, 3, 1, b""),
        chain.publisher,
        "ERC1155InvalidReceiver",
        exchange,
    )
