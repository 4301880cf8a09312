"""`metaledger bench gas`: deploy to a fresh Anvil and measure the gas of the main operations.

Every figure is the `gasUsed` of a mined transaction (base 21,000 and calldata included), except
`verify_proof_1024`, which is `eth_estimateGas` of a `verifyResult` call (a view, as a transaction).
Anchoring packs the anchoring blocks of six batches into one storage slot, so one batch in six (ids
1, 7, 13, ...) opens a fresh slot: `anchor_batch` is the other five, `anchor_batch_slot_opening` that
one, `anchor_batch_mean` the mean over a cycle of six. Swap fills are each the first fill of their
maker (its nonce word is fresh), between wallets that already hold every id traded, unless named
otherwise.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from eth_account import Account
from web3.types import TxParams, Wei

from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode, start_anvil
from ledger.devstack.deploy import contract, deploy_all
from ledger.errors import ChainError
from ledger.protocol import merkle
from ledger.protocol.eip712 import Offer, sign_offer
from ledger.protocol.tokenids import token_id
from ledger.settings import ANVIL_DEV_KEYS

ANCHOR_BAR = 60_000
SWAP_BAR = 140_000
#: Batch ids anchored: two full cycles of six after batch 1, and the next slot's opening batch.
ANCHORED_BATCHES = 13
BLOCKS_PER_SLOT = 6


def _gas(w3: Any, tx_hash: Any) -> int:
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    if receipt["status"] != 1:
        raise ChainError(f"benchmark transaction {tx_hash.hex()} reverted")
    return int(receipt["gasUsed"])


def _swap(
    w3: Any,
    d: Deployment,
    maker_key: str,
    taker: str,
    given: list[int],
    asked: list[int],
    nonce: int,
    asked_wei: int = 0,
) -> int:
    exchange = contract(w3, d, "CardExchange")
    maker = Account.from_key(maker_key).address
    offer = Offer(
        maker=maker,
        given_ids=tuple(given),
        given_amounts=(1,) * len(given),
        asked_ids=tuple(asked),
        asked_amounts=(1,) * len(asked),
        asked_wei=asked_wei,
        expiry=2**40,
        nonce=nonce,
    )
    signature = sign_offer(maker_key, offer, d.chain_id, d.card_exchange)
    tx: TxParams = {"from": taker, "value": Wei(asked_wei)}
    return _gas(w3, exchange.functions.fill(offer.as_tuple(), signature).transact(tx))


def _anchor_figures(w3: Any, d: Deployment, anchorer: str, publisher: str) -> dict[str, Any]:
    ledger = contract(w3, d, "MatchLedger")
    trees = [merkle.build([os.urandom(32) for _ in range(1024)]) for _ in range(2)]
    head = b"\x00" * 32
    gas: dict[int, int] = {}
    for batch_id in range(1, ANCHORED_BATCHES + 1):
        tree = trees[batch_id % 2]
        tx = ledger.functions.anchor(batch_id, tree.root, 1024, head).transact({"from": anchorer})
        gas[batch_id] = _gas(w3, tx)
        head = ledger.functions.headBatchHash().call()
    opening = [gas[i] for i in gas if i > 1 and (i - 1) % BLOCKS_PER_SLOT == 0]
    steady = [gas[i] for i in gas if (i - 1) % BLOCKS_PER_SLOT != 0]
    cycle = [gas[i] for i in range(BLOCKS_PER_SLOT + 1, 2 * BLOCKS_PER_SLOT + 1)]
    out: dict[str, Any] = {
        "anchor_batch_first": gas[1],  # also opens the first slot of anchoring blocks
        "anchor_batch": max(steady),
        "anchor_batch_slot_opening": max(opening),
        "anchor_batch_mean": round(statistics.mean(cycle)),
    }
    out["anchor_gas_per_result_1024"] = round(out["anchor_batch_mean"] / 1024, 2)
    tree = trees[2 % 2]  # batch 2's tree
    proof = tree.proof(517)
    if not ledger.functions.verifyResult(2, tree.digests[517], proof).call():
        raise ChainError("verifyResult refused a valid proof")
    out["verify_proof_1024"] = int(
        ledger.functions.verifyResult(2, tree.digests[517], proof).estimate_gas({"from": publisher})
    )
    out["verify_proof_1024_proof_length"] = len(proof)
    return out


def measure(node: AnvilNode) -> dict[str, Any]:
    """Deploy on `node` and measure; returns the figures."""
    w3 = node.w3
    publisher, signer, anchorer = (Account.from_key(k).address for k in ANVIL_DEV_KEYS[:3])
    alice_key, carol_key, dave_key = ANVIL_DEV_KEYS[3], ANVIL_DEV_KEYS[5], ANVIL_DEV_KEYS[6]
    alice, bob, carol, dave = (Account.from_key(k).address for k in ANVIL_DEV_KEYS[3:7])
    d = deploy_all(w3, ANVIL_DEV_KEYS[0], signer, anchorer, rpc_url=node.rpc_url)
    out: dict[str, Any] = {}
    for name, key in (
        ("CardToken", "deploy_card_token"),
        ("MatchLedger", "deploy_match_ledger"),
        ("CardExchange", "deploy_card_exchange"),
    ):
        out[key] = _gas(w3, d.receipts[name])

    token = contract(w3, d, "CardToken")
    ids = [token_id("metax", f"BENCH-{i:03d}") for i in range(40)]
    fresh = [token_id("metax", f"FRESH-{i}") for i in range(6)]
    out["set_max_supply_batch_40"] = _gas(
        w3, token.functions.setMaxSupplyBatch(ids, [1000] * 40).transact({"from": publisher})
    )
    token.functions.setMaxSupplyBatch(fresh, [1000] * 6).transact({"from": publisher})
    out["mint_batch_40"] = _gas(
        w3, token.functions.mintBatch(alice, ids, [4] * 40, b"").transact({"from": publisher})
    )
    out["transfer_batch_40"] = _gas(
        w3,
        token.functions.safeBatchTransferFrom(alice, bob, ids, [1] * 40, b"").transact(
            {"from": alice}
        ),
    )
    out.update(_anchor_figures(w3, d, anchorer, publisher))

    exchange = d.card_exchange
    # alice holds 3 of each of ids[0:40] and bob 1 of each: both already hold every id traded
    token.functions.safeBatchTransferFrom(alice, carol, ids[20:22], [1, 1], b"").transact(
        {"from": alice}
    )
    token.functions.safeBatchTransferFrom(alice, dave, ids[30:31], [1], b"").transact(
        {"from": alice}
    )
    for who in (alice, bob, carol, dave):
        token.functions.setApprovalForAll(exchange, True).transact({"from": who})
    out["swap_fill_3for3"] = _swap(w3, d, alice_key, bob, ids[0:3], ids[3:6], nonce=1)
    out["swap_fill_3for3_second_offer"] = _swap(w3, d, alice_key, bob, ids[6:9], ids[9:12], nonce=2)
    out["swap_fill_1for1"] = _swap(w3, d, carol_key, bob, ids[20:21], ids[21:22], nonce=1)
    out["swap_fill_cards_for_eth"] = _swap(
        w3, d, dave_key, bob, ids[30:31], [], nonce=1, asked_wei=10**16
    )
    # recipients that held none of the traded ids (each new balance slot costs 20,000 more)
    token.functions.mintBatch(alice, fresh[:3], [1] * 3, b"").transact({"from": publisher})
    token.functions.mintBatch(bob, fresh[3:], [1] * 3, b"").transact({"from": publisher})
    out["swap_fill_3for3_fresh_recipients"] = _swap(
        w3, d, alice_key, bob, fresh[:3], fresh[3:], nonce=3
    )
    out["meets_anchor_bar"] = out["anchor_batch"] <= ANCHOR_BAR
    out["meets_swap_bar"] = out["swap_fill_3for3"] <= SWAP_BAR
    return out


def run(**options: Any) -> dict[str, Any]:
    """Start a fresh Anvil, deploy, measure and stop it; returns the figures."""
    started = time.perf_counter()
    with start_anvil() as node:
        out = measure(node)
        out["anvil_version"] = node.rpc("web3_clientVersion")
    out["seconds"] = round(time.perf_counter() - started, 2)
    return out
