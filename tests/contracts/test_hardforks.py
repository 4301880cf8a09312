"""Which EVM hardforks the contracts run on (README, Supported chains): Cancun and later. On a
Cancun Anvil (the oldest supported) the whole life cycle works: deploy, mint, anchor, look a batch
up, fill swaps. A pre-Cancun chain (Shanghai) is refused before anything is sent, by the library
and by `metaledger chain deploy` run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from eth_account import Account

from ledger.chain.artifacts import CONTRACT_NAMES, load_artifact
from ledger.chain.contracts import MatchLedger
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.devstack.anvil import AnvilNode, start_anvil
from ledger.devstack.deploy import contract, deploy_all, seed_demo
from ledger.errors import ConfigurationError
from ledger.protocol import merkle
from ledger.protocol.eip712 import Offer, sign_offer
from ledger.protocol.tokenids import token_id
from ledger.settings import ANVIL_DEV_KEYS, child_environment

pytestmark = pytest.mark.chain

PUBLISHER_KEY, SIGNER_KEY, ANCHORER_KEY, MAKER_KEY, TAKER_KEY = ANVIL_DEV_KEYS[:5]
PUBLISHER, SIGNER, ANCHORER, MAKER, TAKER = (
    Account.from_key(k).address for k in ANVIL_DEV_KEYS[:5]
)
#: Opcodes that exist from Cancun on: TLOAD, TSTORE (EIP-1153), MCOPY (EIP-5656), BLOBHASH,
#: BLOBBASEFEE (EIP-4844, EIP-7516).
CANCUN_OPCODES = {
    0x5C: "TLOAD",
    0x5D: "TSTORE",
    0x5E: "MCOPY",
    0x49: "BLOBHASH",
    0x4A: "BLOBBASEFEE",
}


def _anvil(tmp_path: Path, hardfork: str) -> Iterator[AnvilNode]:
    node = start_anvil(log_file=tmp_path / f"anvil-{hardfork}.log", hardfork=hardfork)
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture
def cancun(tmp_path: Path) -> Iterator[AnvilNode]:
    """A fresh Anvil with the Cancun rules."""
    yield from _anvil(tmp_path, "cancun")


@pytest.fixture
def shanghai(tmp_path: Path) -> Iterator[AnvilNode]:
    """A fresh Anvil with the Shanghai rules (before Cancun)."""
    yield from _anvil(tmp_path, "shanghai")


def _opcodes(bytecode: str) -> set[int]:
    """The opcodes of runtime bytecode, PUSH data and the trailing CBOR metadata skipped."""
    code = bytes.fromhex(bytecode.removeprefix("0x"))
    code = code[: len(code) - 2 - int.from_bytes(code[-2:], "big")]
    found, pc = set(), 0
    while pc < len(code):
        op = code[pc]
        found.add(op)
        pc += 1 + (op - 0x5F if 0x60 <= op <= 0x7F else 0)
    return found


def test_the_compiled_contracts_use_cancun_opcodes() -> None:
    """Why Shanghai is refused: solc's code for evmVersion cancun copies memory with MCOPY."""
    used = {
        name: sorted(
            CANCUN_OPCODES[op]
            for op in _opcodes(load_artifact(name).deployed_bytecode)
            if op in CANCUN_OPCODES
        )
        for name in CONTRACT_NAMES
    }
    assert any(ops for ops in used.values()), used
    assert all(set(ops) <= {"MCOPY"} for ops in used.values()), used  # no transient storage left


def test_cancun_chain_runs_the_whole_life_cycle(cancun: AnvilNode) -> None:
    w3 = cancun.w3
    d = deploy_all(w3, PUBLISHER_KEY, SIGNER, ANCHORER, rpc_url=cancun.rpc_url)
    card_a, card_b = token_id("metax", "U92-JL"), token_id("metax", "U93-JL")
    seed_demo(w3, d, PUBLISHER_KEY, {MAKER: [(card_a, 3)], TAKER: [(card_b, 3)]})
    token, ledger = contract(w3, d, "CardToken"), contract(w3, d, "MatchLedger")
    assert token.functions.balanceOfBatch([MAKER, TAKER], [card_a, card_b]).call() == [3, 3]

    tree = merkle.build([os.urandom(32) for _ in range(5)])
    tx = ledger.functions.anchor(1, tree.root, 5, b"\x00" * 32).transact({"from": ANCHORER})
    anchored_in = w3.eth.wait_for_transaction_receipt(tx)["blockNumber"]
    client = MatchLedger(JsonRpc(cancun.rpc_url), d.match_ledger)
    event = client.anchored_batch(1)
    assert event is not None and event.block_number == anchored_in and event.root == tree.root
    assert client.verify_result(1, tree.digests[3], tree.proof(3))
    assert client.eip712_domain()["chainId"] == 31337

    exchange = contract(w3, d, "CardExchange")
    for who in (MAKER, TAKER):
        token.functions.setApprovalForAll(d.card_exchange, True).transact({"from": who})
    swap = Offer(maker=MAKER, given_ids=(card_a,), given_amounts=(1,), asked_ids=(card_b,),
                 asked_amounts=(2,), expiry=2**40, nonce=1)  # fmt: skip
    for_eth = Offer(maker=MAKER, given_ids=(card_a,), given_amounts=(1,), asked_wei=10**15,
                    expiry=2**40, nonce=2)  # fmt: skip
    for o, value in ((swap, 0), (for_eth, 10**15)):
        signature = sign_offer(MAKER_KEY, o, d.chain_id, d.card_exchange)
        tx = exchange.functions.fill(o.as_tuple(), signature).transact(
            {"from": TAKER, "value": value}  # type: ignore[typeddict-item]
        )
        assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    assert token.functions.balanceOfBatch([MAKER, TAKER], [card_a, card_a]).call() == [1, 2]
    assert token.functions.balanceOfBatch([MAKER, TAKER], [card_b, card_b]).call() == [2, 1]


def test_pre_cancun_chain_is_refused_before_anything_is_sent(shanghai: AnvilNode) -> None:
    w3 = shanghai.w3
    with pytest.raises(ConfigurationError, match="no Cancun upgrade"):
        deploy_all(w3, PUBLISHER_KEY, SIGNER, ANCHORER, rpc_url=shanghai.rpc_url)
    assert w3.eth.get_transaction_count(PUBLISHER) == 0


def test_chain_deploy_cli_refuses_a_pre_cancun_chain(shanghai: AnvilNode, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "chain", "deploy"],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_environment(rpc_url=shanghai.rpc_url, data_dir=str(tmp_path / "data")),
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: chain 31337 has no Cancun upgrade")
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "data" / "deployment.json").exists()
    assert shanghai.w3.eth.get_transaction_count(PUBLISHER) == 0


def test_deployment_round_trips_on_cancun(cancun: AnvilNode, tmp_path: Path) -> None:
    d = deploy_all(cancun.w3, PUBLISHER_KEY, SIGNER, ANCHORER, rpc_url=cancun.rpc_url)
    d.save(tmp_path / "deployment.json")
    assert Deployment.load(tmp_path / "deployment.json").addresses == d.addresses
