"""`metaledger bench gas`: deploy to a fresh Anvil and measure the gas of the main operations.

Every figure is the `gasUsed` of a mined transaction (base 21,000 and calldata included), except
`verify_proof_1024`, which is `eth_estimateGas` of a `verifyResult` call (a view, as a transaction).
"""

from __future__ import annotations

import os
import time
from typing import Any

from eth_account import Account

from ledger import merkle
from ledger.deploy import Deployment, contract, deploy_all
from ledger.devchain import AnvilNode, start_anvil
from ledger.errors import ChainError
from ledger.settings import ANVIL_DEV_KEYS
from ledger.signing import Offer, sign_offer
from ledger.tokenids import token_id

ANCHOR_BAR = 60_000
SWAP_BAR = 150_000


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
) -> int:
    exchange = contract(w3, d, "CardExchange")
    maker = Account.from_key(maker_key).address
    offer = Offer(
        maker=maker,
        given_ids=tuple(given),
        given_amounts=(1,) * len(given),
        asked_ids=tuple(asked),
        asked_amounts=(1,) * len(asked),
        expiry=2**40,
        nonce=nonce,
    )
    signature = sign_offer(maker_key, offer, d.chain_id, d.card_exchange)
    return _gas(w3, exchange.functions.fill(offer.as_tuple(), signature).transact({"from": taker}))


def measure(node: AnvilNode) -> dict[str, Any]:
    """Deploy on `node` and measure; returns the figures."""
    w3 = node.w3
    publisher, signer, anchorer = (Account.from_key(k).address for k in ANVIL_DEV_KEYS[:3])
    alice_key, bob_key = ANVIL_DEV_KEYS[3], ANVIL_DEV_KEYS[4]
    alice, bob = Account.from_key(alice_key).address, Account.from_key(bob_key).address
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
    out["mint_batch_40"] = _gas(
        w3, token.functions.mintBatch(alice, ids, [4] * 40, b"").transact({"from": publisher})
    )
    out["transfer_batch_40"] = _gas(
        w3,
        token.functions.safeBatchTransferFrom(alice, bob, ids, [1] * 40, b"").transact(
            {"from": alice}
        ),
    )

    ledger = contract(w3, d, "MatchLedger")
    trees = [merkle.build([os.urandom(32) for _ in range(1024)]) for _ in range(3)]
    head = b"\x00" * 32
    anchors = []
    for batch_id, tree in enumerate(trees, start=1):
        anchors.append(
            _gas(
                w3,
                ledger.functions.anchor(batch_id, tree.root, 1024, head).transact(
                    {"from": anchorer}
                ),
            )
        )
        head = ledger.functions.headBatchHash().call()
    out["anchor_batch_first"] = anchors[0]  # batch 1 also writes the chain head from zero
    out["anchor_batch"] = max(anchors[1:])  # steady state, independent of the batch size
    out["anchor_gas_per_result_1024"] = round(out["anchor_batch"] / 1024, 2)
    tree = trees[1]
    proof = tree.proof(517)
    if not ledger.functions.verifyResult(2, tree.digests[517], proof).call():
        raise ChainError("verifyResult refused a valid proof")
    out["verify_proof_1024"] = int(
        ledger.functions.verifyResult(2, tree.digests[517], proof).estimate_gas({"from": publisher})
    )
    out["verify_proof_1024_proof_length"] = len(proof)

    exchange = d.card_exchange
    token.functions.setApprovalForAll(exchange, True).transact({"from": alice})
    token.functions.setApprovalForAll(exchange, True).transact({"from": bob})
    # alice holds 3 of each of ids[0:40] and bob 1 of each: both already hold every id traded
    out["swap_fill_3for3"] = _swap(w3, d, alice_key, bob, ids[0:3], ids[3:6], nonce=1)
    out["swap_fill_3for3_second_offer"] = _swap(w3, d, alice_key, bob, ids[6:9], ids[9:12], nonce=2)
    # recipients that held none of the traded ids (each new balance slot costs 20,000 more)
    fresh = [token_id("metax", f"FRESH-{i}") for i in range(6)]
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
