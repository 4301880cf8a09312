"""A collector's wallet sending the transactions the API hands out (fill, cancel, approval):
signed locally with the wallet's own key, over the one JSON-RPC transport.

A transaction is dry-run first (`eth_estimateGas`): one that would revert is refused before it
is signed, with the custom error by name (`CardExchangeWrongTaker(taker=..., caller=...)`,
`ERC1155MissingApprovalForAll(...)`), and so is a mined transaction that reverted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_utils import to_checksum_address

from ledger.chain.artifacts import Revert, explain_revert
from ledger.chain.transport import JsonRpc, OnOneChain, RpcError
from ledger.errors import ChainError
from ledger.protocol.hexcodec import from_hex


class TransactionRefused(ChainError, slug="transaction-refused", title="Transaction refused"):
    """A transaction that would revert (or did): names the contract's custom error."""

    def __init__(self, what: str, revert: Revert | None, detail: str = "") -> None:
        named = revert.text() if revert is not None else detail or "reverted"
        super().__init__(
            f"{what} would revert: {named}",
            error=None if revert is None else revert.as_dict(),
        )
        self.revert = revert


@dataclass(frozen=True)
class Sent:
    """A mined transaction."""

    tx_hash: str
    block_number: int
    gas_used: int


class WalletSender(OnOneChain):
    """Sends transactions from one key (EIP-1559 fees from the node)."""

    def __init__(self, rpc: JsonRpc, key: str) -> None:
        self.rpc = rpc
        self.account = Account.from_key(key)
        self.address = str(self.account.address)
        self._chain_id: int | None = None

    def _estimate(self, tx: dict[str, Any], what: str) -> int:
        try:
            return int(str(self.rpc.call("eth_estimateGas", tx)), 16)
        except RpcError as exc:
            data = exc.revert_data
            if data is None and "revert" not in exc.message.lower():
                raise
            raise TransactionRefused(what, explain_revert(data or b""), exc.message) from None

    def send(self, to: str, data: str, value: int = 0, *, what: str = "the transaction") -> Sent:
        """Dry-run, sign, send and wait for a transaction; TransactionRefused if it reverts."""
        call: dict[str, Any] = {
            "from": self.address,
            "to": to_checksum_address(to),
            "data": data,
            "value": hex(value),
        }
        gas = self._estimate(call, what)
        block = self.rpc.block("latest") or {}
        base = int(str(block.get("baseFeePerGas", "0x0")), 16)
        tip = int(str(self.rpc.call("eth_maxPriorityFeePerGas")), 16)
        tx = {
            "to": call["to"],
            "data": from_hex(data, "data"),
            "value": value,
            "gas": gas + gas // 5 + 10_000,
            "maxFeePerGas": 2 * base + tip,
            "maxPriorityFeePerGas": tip,
            "nonce": self.rpc.nonce(self.address, "pending"),
            "chainId": self.chain_id,
        }
        signed = self.account.sign_transaction(tx)
        tx_hash = self.rpc.send_raw(signed.raw_transaction.to_0x_hex()) or signed.hash.to_0x_hex()
        receipt = self.wait(tx_hash)
        if int(str(receipt["status"]), 16) != 1:
            raise TransactionRefused(what, None, f"reverted in transaction {tx_hash}")
        return Sent(tx_hash, int(str(receipt["blockNumber"]), 16), int(str(receipt["gasUsed"]), 16))

    def wait(self, tx_hash: str, timeout: float = 120.0) -> dict[str, Any]:
        """The receipt of `tx_hash` once mined (ChainError after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            receipt = self.rpc.receipt(tx_hash)
            if receipt is not None:
                return receipt
            time.sleep(0.2)
        raise ChainError(f"transaction {tx_hash} was not mined within {timeout:g} s")
