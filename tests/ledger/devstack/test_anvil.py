"""The local Anvil chain: starts on a free port, answers, snapshots, refuses a taken port."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ledger.devstack.anvil import AnvilNode, chain_answers, start_anvil
from ledger.errors import ConfigurationError
from tests.fixtures.chain import reverted


def test_session_anvil_answers_with_chain_id_31337(anvil: AnvilNode) -> None:
    assert anvil.chain_id == 31337
    assert anvil.w3.eth.block_number >= 0
    assert chain_answers(anvil.rpc_url)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    assert not chain_answers(f"http://127.0.0.1:{dead}", timeout=0.5)


def test_snapshot_and_revert_restore_the_block_number(anvil: AnvilNode) -> None:
    before = anvil.w3.eth.block_number
    snap = anvil.snapshot()
    anvil.mine(3)
    assert anvil.w3.eth.block_number == before + 3
    anvil.revert(snap)
    assert anvil.w3.eth.block_number == before


def test_evm_snapshot_fixture_isolates_state(anvil: AnvilNode) -> None:
    """What a test does inside the fixture's snapshot (blocks, balances) is gone afterwards."""
    sender, receiver = anvil.w3.eth.accounts[:2]
    block, balance = anvil.w3.eth.block_number, anvil.w3.eth.get_balance(receiver)
    with reverted(anvil) as node:
        node.rpc("eth_sendTransaction", {"from": sender, "to": receiver, "value": hex(10**18)})
        node.mine(2)
        assert node.w3.eth.block_number >= block + 2
        assert node.w3.eth.get_balance(receiver) == balance + 10**18
    assert anvil.w3.eth.block_number == block
    assert anvil.w3.eth.get_balance(receiver) == balance


def test_a_taken_port_is_named_with_its_holder() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(
            ConfigurationError, match=f"port {port} for Anvil is already taken by pid"
        ):
            start_anvil(port)


def test_the_local_chain_keeps_historical_states_across_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "anvil-state.json"
    node = start_anvil(state_file=state, log_file=tmp_path / "anvil.log")
    sender, receiver = node.w3.eth.accounts[:2]
    tx = {"from": sender, "to": receiver, "value": hex(10**18)}
    node.rpc("eth_sendTransaction", tx)
    node.mine(3)
    old_block = 1
    before = node.rpc("eth_getBalance", receiver, hex(old_block))
    head = node.w3.eth.block_number
    node.stop()
    assert state.exists()
    again = start_anvil(node.port, state_file=state, log_file=tmp_path / "anvil.log")
    try:
        assert again.w3.eth.block_number == head
        assert again.rpc("eth_getBalance", receiver, hex(old_block)) == before
        assert again.rpc("eth_getBalance", receiver, hex(0)) != before  # a real history
    finally:
        again.stop()
