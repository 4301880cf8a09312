"""Contract bindings on a real Anvil: the EIP-1271 check says yes only for the magic value as
an ABI-encoded bytes4, no for a revert or any other answer, and fails loudly when the node does."""

from __future__ import annotations

import socket

import pytest
from eth_account import Account

from ledger.chain.contracts import eip1271_accepts
from ledger.chain.transport import JsonRpc
from ledger.devstack.anvil import AnvilNode
from ledger.errors import ServiceUnavailable
from tests.fixtures.chain import account_with_code

#: wallets as raw runtime code: what each returns from any call
WALLETS = {
    "0x631626ba7e60e01b60005260206000f3": True,  # the magic value, ABI-encoded
    "0x60206000f3": False,  # 32 zero bytes
    "0x631626ba7e60e01b60005260046000f3": False,  # the magic value, but only its 4 bytes
    "0x641626ba7eff60d81b60005260206000f3": False,  # the magic value followed by garbage
    "0x60006000fd": False,  # a revert
}


@pytest.mark.parametrize("code", sorted(WALLETS))
def test_eip1271_accepts_only_the_abi_encoded_magic_value(
    evm_snapshot: AnvilNode, code: str
) -> None:
    wallet = account_with_code(evm_snapshot, code)
    rpc = JsonRpc(evm_snapshot.rpc_url)
    assert eip1271_accepts(rpc, wallet, b"\x11" * 32, b"\x22" * 65) is WALLETS[code]
    rpc.close()


def test_eip1271_on_a_dead_node_is_an_error_not_a_no() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rpc = JsonRpc(f"http://127.0.0.1:{port}", timeout=0.5, retries=0)
    with pytest.raises(ServiceUnavailable):
        eip1271_accepts(rpc, Account.create().address, b"\x11" * 32, b"\x22" * 65)
