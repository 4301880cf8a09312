"""The CardToken indexer against a real Anvil: balances equal the chain's, after reorgs and restarts."""

from __future__ import annotations

import pytest
from eth_account import Account
from sqlalchemy import Engine, func, select

from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.indexing import IndexerCursor, TokenBalance, TokenTransfer
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.deploy import contract, seed_demo
from ledger.indexing.service import Indexer
from ledger.protocol.hexcodec import uint256_hex
from ledger.protocol.tokenids import token_id
from ledger.settings import ANVIL_DEV_KEYS

pytestmark = pytest.mark.chain

PUBLISHER = ANVIL_DEV_KEYS[0]
ALICE_KEY, BOB_KEY = ANVIL_DEV_KEYS[5], ANVIL_DEV_KEYS[6]
ALICE, BOB = Account.from_key(ALICE_KEY).address, Account.from_key(BOB_KEY).address
CARDS = [token_id("metax", c) for c in ("U92-JL", "A1", "B2")]


def transfer(
    anvil: AnvilNode, deployment: Deployment, key: str, to: str, ids: list[int], amounts: list[int]
) -> None:
    """safeBatchTransferFrom (or safeTransferFrom for one id) signed by `key`."""
    w3 = anvil.w3
    token = contract(w3, deployment, "CardToken")
    sender = Account.from_key(key)
    if len(ids) == 1:
        data = token.encode_abi("safeTransferFrom", [sender.address, to, ids[0], amounts[0], b""])
    else:
        data = token.encode_abi("safeBatchTransferFrom", [sender.address, to, ids, amounts, b""])
    tx = sender.sign_transaction(
        {
            "to": deployment.card_token,
            "data": data,
            "gas": 300_000,
            "chainId": 31337,
            "value": 0,
            "nonce": w3.eth.get_transaction_count(sender.address),
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(tx.raw_transaction))
    assert receipt["status"] == 1


def assert_balances_match_chain(engine: Engine, anvil: AnvilNode, deployment: Deployment) -> None:
    """Every indexed balance of ALICE and BOB equals balanceOfBatch on-chain, and nothing else is held."""
    owners = [o for o in (ALICE, BOB) for _ in CARDS]
    ids = CARDS * 2
    token = contract(anvil.w3, deployment, "CardToken")  # web3's own encoder: an independent read
    onchain = token.functions.balanceOfBatch(owners, ids).call()
    with unit_of_work(engine) as s:
        indexed = {(b.owner, b.token_id): b.amount for b in s.scalars(select(TokenBalance))}
    expected = {(o, uint256_hex(i)): v for o, i, v in zip(owners, ids, onchain, strict=True) if v}
    assert indexed == expected


def make_indexer(
    engine: Engine, anvil: AnvilNode, deployment: Deployment, max_range: int = 2000, **kw: int
) -> Indexer:
    return Indexer(
        engine,
        JsonRpc(anvil.rpc_url, max_log_range=max_range),
        deployment.card_token,
        deployment.deployment_block,
        **{"reorg_depth": 4, **kw},
    )  # type: ignore[arg-type]


def test_indexes_mints_and_transfers_into_balances(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    anvil = evm_snapshot
    seed_demo(
        anvil.w3,
        deployment,
        PUBLISHER,
        {ALICE: [(CARDS[0], 3), (CARDS[1], 2)], BOB: [(CARDS[2], 5)]},
    )
    transfer(anvil, deployment, ALICE_KEY, BOB, [CARDS[0]], [1])
    transfer(anvil, deployment, BOB_KEY, ALICE, [CARDS[2], CARDS[0]], [2, 1])
    report = make_indexer(engine, anvil, deployment, max_range=3).run_once()
    assert (
        report.added == 2 + 1 + 1 + 2
    )  # two batch mints (2 + 1 items), one single, one batch of 2
    assert_balances_match_chain(engine, anvil, deployment)
    with unit_of_work(engine) as s:
        assert s.execute(select(func.count()).select_from(TokenTransfer)).scalar_one() == 6


def test_survives_a_reorg_and_resumes_after_a_restart(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    anvil = evm_snapshot
    seed_demo(anvil.w3, deployment, PUBLISHER, {ALICE: [(CARDS[0], 3)]})
    make_indexer(engine, anvil, deployment).run_once()
    fork = anvil.snapshot()
    transfer(anvil, deployment, ALICE_KEY, BOB, [CARDS[0]], [2])
    make_indexer(engine, anvil, deployment).run_once()
    assert_balances_match_chain(engine, anvil, deployment)
    # reorg: the transfer to BOB never happened; ALICE sends one copy to BOB instead
    anvil.revert(fork)
    transfer(anvil, deployment, ALICE_KEY, BOB, [CARDS[0]], [1])
    anvil.mine(1)
    restarted = make_indexer(engine, anvil, deployment)  # a new process: state only in the database
    report = restarted.run_once()
    assert report.removed >= 1
    assert_balances_match_chain(engine, anvil, deployment)
    again = restarted.run_once()  # idempotent: re-reading the last K blocks changes nothing
    assert again.added == again.removed
    assert_balances_match_chain(engine, anvil, deployment)
    with unit_of_work(engine) as s:
        cursor = s.get(IndexerCursor, deployment.card_token)
        assert cursor is not None and cursor.last_block == anvil.w3.eth.block_number


def test_a_reorg_deeper_than_k_rebuilds_the_index(
    engine: Engine, evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    anvil = evm_snapshot
    fork = anvil.snapshot()
    seed_demo(anvil.w3, deployment, PUBLISHER, {ALICE: [(CARDS[1], 4)]})
    anvil.mine(10)
    make_indexer(engine, anvil, deployment, reorg_depth=2).run_once()
    anvil.revert(fork)
    seed_demo(anvil.w3, deployment, PUBLISHER, {BOB: [(CARDS[1], 1)]})
    anvil.mine(12)
    report = make_indexer(engine, anvil, deployment, reorg_depth=2).run_once()
    assert report.rebuilt
    assert_balances_match_chain(engine, anvil, deployment)
