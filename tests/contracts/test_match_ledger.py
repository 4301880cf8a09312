"""MatchLedger on a real Anvil: anchoring and the batch hash chain, Merkle verification with the
StandardMerkleTree leaf, the signer registry with history, EIP-712 result signatures from Python."""

from __future__ import annotations

import os

import pytest
from eth_abi import encode
from eth_account import Account
from eth_hash.auto import keccak

from ledger.chain.contracts import BATCH_ALREADY_ANCHORED, MatchLedger
from ledger.chain.transport import JsonRpc
from ledger.protocol import merkle
from ledger.protocol.eip712 import (
    ZERO_ADDRESS,
    MatchResult,
    recover_result_signer,
    result_digest,
    result_typed_data,
    sign_result,
)
from tests.contracts.conftest import Chain

pytestmark = pytest.mark.chain

ZERO32 = b"\x00" * 32


def batch_hash(prev: bytes, batch_id: int, root: bytes, count: int) -> bytes:
    return keccak(encode(["bytes32", "uint64", "bytes32", "uint32"], [prev, batch_id, root, count]))


def make_result(**changes: object) -> MatchResult:
    fields: dict[str, object] = {
        "match_id": keccak(b"match-42"),
        "game": "metax",
        "ruleset_version": "metax/1.0",
        "player0": "0x" + "a1" * 20,
        "player1": "0x" + "b2" * 20,
        "deck0": keccak(b"deck0"),
        "deck1": keccak(b"deck1"),
        "seed_commitments": keccak(b"seeds"),
        "transcript_hash": keccak(b"transcript"),
        "final_state_hash": bytes(range(32)),
        "winner": "0x" + "a1" * 20,
        "ownership_block": 17,
    }
    fields.update(changes)
    return MatchResult(**fields)  # type: ignore[arg-type]


def test_anchor_chain_events_and_views(chain: Chain) -> None:
    led = chain.ledger.functions
    assert led.latestBatchId().call() == 0
    assert led.headBatchHash().call() == ZERO32
    prev = ZERO32
    for batch_id in (1, 2, 3):
        root = os.urandom(32)
        receipt = chain.send(
            chain.ledger, "anchor", batch_id, root, 10 * batch_id, prev, sender=chain.anchorer
        )
        (event,) = chain.events(chain.ledger, receipt, "BatchAnchored")
        expected = batch_hash(prev, batch_id, root, 10 * batch_id)
        assert dict(event) == {
            "batchId": batch_id,
            "root": root,
            "count": 10 * batch_id,
            "prevBatchHash": prev,
            "batchHash": expected,
        }
        assert led.batchRoot(batch_id).call() == root
        assert led.headBatchHash().call() == expected
        assert led.latestBatchId().call() == batch_id
        assert led.batchAnchorBlock(batch_id).call() == receipt["blockNumber"]
        prev = expected
    assert led.batchAnchorBlock(0).call() == led.batchAnchorBlock(4).call() == 0


def test_batch_event_found_from_its_id_in_one_block(chain: Chain) -> None:
    """MatchLedger reads the anchoring block from the contract and asks for that one block's
    logs: no scan from the deployment block, across slots of packed blocks too."""
    client = MatchLedger(JsonRpc(chain.anvil.rpc_url), chain.ledger.address)
    prev, blocks = ZERO32, {}
    for batch_id in range(1, 9):  # batches 1-6 share a slot; 7 opens the next one
        chain.anvil.mine(batch_id)  # anchoring blocks spread apart
        root = os.urandom(32)
        receipt = chain.send(chain.ledger, "anchor", batch_id, root, 3, prev, sender=chain.anchorer)
        blocks[batch_id] = receipt["blockNumber"]
        prev = batch_hash(prev, batch_id, root, 3)
    chain.anvil.mine(5)
    for batch_id, block in blocks.items():
        assert client.batch_anchor_block(batch_id) == block
        event = client.anchored_batch(batch_id)
        assert event is not None
        assert (event.batch_id, event.block_number, event.count) == (batch_id, block, 3)
    assert client.batch_anchor_block(9) == 0
    assert client.anchored_batch(9) is None


def test_anchor_reverts(chain: Chain) -> None:
    a = chain.anchorer
    root = os.urandom(32)
    out_of_order, empty = "MatchLedgerBatchOutOfOrder", "MatchLedgerEmptyBatch"
    chain.assert_reverts(chain.ledger, "anchor", (2, root, 1, ZERO32), a, out_of_order, 2)
    chain.assert_reverts(chain.ledger, "anchor", (0, root, 1, ZERO32), a, out_of_order, 0)
    chain.assert_reverts(chain.ledger, "anchor", (1, ZERO32, 1, ZERO32), a, empty, 1)
    chain.assert_reverts(chain.ledger, "anchor", (1, root, 0, ZERO32), a, empty, 1)
    wrong = b"\x01" * 32
    chain.assert_reverts(
        chain.ledger,
        "anchor",
        (1, root, 1, wrong),
        a,
        "MatchLedgerPrevBatchHashMismatch",
        ZERO32,
        wrong,
    )
    role = chain.ledger.functions.ANCHORER_ROLE().call()
    p = chain.publisher
    chain.assert_reverts(
        chain.ledger, "anchor", (1, root, 1, ZERO32), p, "AccessControlUnauthorizedAccount", p, role
    )
    chain.send(chain.ledger, "anchor", 1, root, 1, ZERO32, sender=a)
    head = chain.ledger.functions.headBatchHash().call()
    chain.assert_reverts(
        chain.ledger,
        "anchor",
        (1, os.urandom(32), 1, head),
        a,
        "MatchLedgerBatchAlreadyAnchored",
        1,
    )
    # the worker's dry run names the error from the ABI
    client = MatchLedger(JsonRpc(chain.anvil.rpc_url), chain.ledger.address)
    assert client.simulate_anchor(a, 1, os.urandom(32), 1, head) == BATCH_ALREADY_ANCHORED
    assert client.simulate_anchor(a, 2, os.urandom(32), 1, head) is None


def test_verify_result_agrees_with_python_merkle_tree(chain: Chain) -> None:
    digests = [os.urandom(32) for _ in range(37)]
    tree = merkle.build(digests)
    chain.send(chain.ledger, "anchor", 1, tree.root, len(digests), ZERO32, sender=chain.anchorer)
    verify = chain.ledger.functions.verifyResult
    for i in (0, 1, 18, 36):
        assert verify(1, digests[i], tree.proof(i)).call()
        assert merkle.verify(tree.root, digests[i], tree.proof(i))
    assert not verify(1, digests[0], tree.proof(1)).call()
    assert not verify(1, os.urandom(32), tree.proof(0)).call()
    assert not verify(2, digests[0], tree.proof(0)).call()  # batch not anchored


def test_signer_registry_history_and_events(chain: Chain) -> None:
    led = chain.ledger.functions
    assert led.isSigner(chain.signer).call()
    new = chain.collectors[0]
    receipt = chain.send(chain.ledger, "addSigner", new, sender=chain.publisher)
    added_at = receipt["blockNumber"]
    assert dict(chain.events(chain.ledger, receipt, "SignerAdded")[0]) == {
        "signer": new,
        "admin": chain.publisher,
    }
    chain.anvil.mine(2)
    receipt = chain.send(chain.ledger, "removeSigner", new, sender=chain.publisher)
    removed_at = receipt["blockNumber"]
    assert dict(chain.events(chain.ledger, receipt, "SignerRemoved")[0]) == {
        "signer": new,
        "admin": chain.publisher,
    }
    assert not led.isSigner(new).call()
    assert not led.wasSignerAt(new, added_at - 1).call()
    assert led.wasSignerAt(new, added_at).call()
    assert led.wasSignerAt(new, removed_at - 1).call()
    assert not led.wasSignerAt(new, removed_at).call()


def test_signer_registry_reverts(chain: Chain) -> None:
    p, other = chain.publisher, chain.collectors[1]
    chain.assert_reverts(
        chain.ledger,
        "addSigner",
        (chain.signer,),
        p,
        "MatchLedgerSignerAlreadyAuthorised",
        chain.signer,
    )
    chain.assert_reverts(
        chain.ledger, "removeSigner", (other,), p, "MatchLedgerSignerNotAuthorised", other
    )
    chain.assert_reverts(
        chain.ledger, "addSigner", (ZERO_ADDRESS,), p, "MatchLedgerInvalidSigner", ZERO_ADDRESS
    )
    for fn in ("addSigner", "removeSigner"):
        chain.assert_reverts(
            chain.ledger, fn, (other,), other, "AccessControlUnauthorizedAccount", other, ZERO32
        )


def test_python_digest_and_signature_agree_with_contract(chain: Chain) -> None:
    d = chain.deployment
    result = make_result()
    digest = result_digest(result, d.chain_id, d.match_ledger)
    assert chain.ledger.functions.resultDigest(result.as_tuple()).call() == digest
    signature = sign_result(chain.signer_key, result, d.chain_id, d.match_ledger)
    assert recover_result_signer(result, signature, d.chain_id, d.match_ledger) == chain.signer
    assert chain.ledger.functions.isValidResult(result.as_tuple(), signature).call()
    assert chain.ledger.functions.isValidResultBy(result.as_tuple(), chain.signer, signature).call()
    # the typed data is what a wallet would sign: eth-account agrees
    wallet_sig = Account.sign_typed_data(
        chain.signer_key, full_message=result_typed_data(result, d.chain_id, d.match_ledger)
    )
    assert bytes(wallet_sig.signature) == signature
    # round trip through the EIP-712 message form
    assert MatchResult.from_message(result.as_message()) == result


@pytest.mark.parametrize(
    "tamper",
    [
        {"winner": "0x" + "b2" * 20},
        {"winner": ZERO_ADDRESS},
        {"game": "metamasters"},
        {"ownership_block": 18},
        {"transcript_hash": keccak(b"other")},
        {"ruleset_version": "metax/1.1"},
    ],
)
def test_tampered_result_is_invalid(chain: Chain, tamper: dict[str, object]) -> None:
    d = chain.deployment
    signature = sign_result(chain.signer_key, make_result(), d.chain_id, d.match_ledger)
    assert not chain.ledger.functions.isValidResult(
        make_result(**tamper).as_tuple(), signature
    ).call()


def test_unregistered_or_removed_signer_and_other_domains(chain: Chain) -> None:
    d = chain.deployment
    result = make_result()
    outsider = os.urandom(32)
    sig = sign_result(outsider, result, d.chain_id, d.match_ledger)
    assert not chain.ledger.functions.isValidResult(result.as_tuple(), sig).call()
    # signed for another chain id or another ledger contract: invalid here
    for chain_id, address in ((1, d.match_ledger), (d.chain_id, d.card_token)):
        foreign = sign_result(chain.signer_key, result, chain_id, address)
        assert not chain.ledger.functions.isValidResult(result.as_tuple(), foreign).call()
    assert not chain.ledger.functions.isValidResult(result.as_tuple(), b"\x01" * 65).call()
    assert not chain.ledger.functions.isValidResult(result.as_tuple(), b"").call()
    good = sign_result(chain.signer_key, result, d.chain_id, d.match_ledger)
    chain.send(chain.ledger, "removeSigner", chain.signer, sender=chain.publisher)
    assert not chain.ledger.functions.isValidResult(result.as_tuple(), good).call()


def test_eip1271_signer(chain: Chain) -> None:
    d = chain.deployment
    owner_key = os.urandom(32)
    wallet = chain.deploy("ERC1271WalletMock", Account.from_key(owner_key).address)
    result = make_result()
    sig = sign_result(owner_key, result, d.chain_id, d.match_ledger)
    by = chain.ledger.functions.isValidResultBy
    assert not by(result.as_tuple(), wallet.address, sig).call()  # not registered yet
    chain.send(chain.ledger, "addSigner", wallet.address, sender=chain.publisher)
    assert by(result.as_tuple(), wallet.address, sig).call()
    assert not by(make_result(game="metaversus").as_tuple(), wallet.address, sig).call()
    assert not by(
        result.as_tuple(),
        wallet.address,
        sign_result(os.urandom(32), result, d.chain_id, d.match_ledger),
    ).call()
