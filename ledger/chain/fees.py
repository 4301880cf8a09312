"""EIP-1559 fees from `eth_feeHistory`, and the raise a replacement transaction needs.

`suggest` reads the last `blocks` blocks: the tip is the median of their `percentile`-th
priority fees (the node's `eth_maxPriorityFeePerGas` on an idle chain, where every block's
reward is zero), and the fee cap leaves room for the base fee to double: `2 × next base fee + tip`.
A replacement (same nonce) must raise both the tip and the cap by at least 12.5 % (nodes refuse
less: geth asks for 10 %, some providers for 12.5 %), and never above the operator's cap.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from ledger.chain.transport import JsonRpc
from ledger.errors import ChainError

#: a replacement raises each fee to at least this fraction of the old one (112.5 %)
BUMP_NUMERATOR, BUMP_DENOMINATOR = 9, 8


@dataclass(frozen=True)
class Fees:
    """The two EIP-1559 fee fields of a transaction, in wei per gas."""

    max_fee_per_gas: int
    max_priority_fee_per_gas: int

    def tx_fields(self) -> dict[str, int]:
        """The fields as a transaction dict has them."""
        return {
            "maxFeePerGas": self.max_fee_per_gas,
            "maxPriorityFeePerGas": self.max_priority_fee_per_gas,
        }

    def replacement(self, current: Fees, cap: int) -> Fees | None:
        """The fees of a transaction replacing one sent with these: each raised by at least
        12.5 %, and at least `current` (what the chain asks now); None when that would exceed
        `cap` (the largest max fee per gas the operator allows)."""
        tip = max(_bumped(self.max_priority_fee_per_gas), current.max_priority_fee_per_gas)
        fee = max(_bumped(self.max_fee_per_gas), current.max_fee_per_gas, tip)
        if fee > cap:
            return None
        return Fees(fee, tip)

    def capped(self, cap: int) -> Fees:
        """These fees with the max fee (and so the tip) at most `cap`."""
        fee = min(self.max_fee_per_gas, cap)
        return Fees(fee, min(self.max_priority_fee_per_gas, fee))


def _bumped(value: int) -> int:
    """`value` raised by 12.5 %, rounded up (and by at least 1 wei)."""
    return max(value + 1, -(-value * BUMP_NUMERATOR // BUMP_DENOMINATOR))


def _int(value: Any) -> int:
    try:
        return int(value, 16) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ChainError(f"eth_feeHistory answered a malformed number {value!r}") from None


def suggest(rpc: JsonRpc, blocks: int = 10, percentile: float = 50.0) -> Fees:
    """The fees for a transaction sent now, from the last `blocks` blocks' fee history."""
    history = rpc.call("eth_feeHistory", hex(blocks), "latest", [percentile])
    if not isinstance(history, dict) or not history.get("baseFeePerGas"):
        raise ChainError("eth_feeHistory answered without base fees (is this an EIP-1559 chain?)")
    next_base = _int(history["baseFeePerGas"][-1])
    rewards = [_int(r[0]) for r in history.get("reward") or [] if r]
    tip = int(statistics.median(rewards)) if any(rewards) else 0
    if tip == 0:
        tip = _int(rpc.call("eth_maxPriorityFeePerGas"))
    return Fees(2 * next_base + tip, tip)
