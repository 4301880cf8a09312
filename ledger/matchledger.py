"""Raw JSON-RPC access to MatchLedger and CardToken for the workers and auditors.

Calls are ABI-encoded here with eth_abi (no contract objects), so the anchorer and the
verifier need only an RPC URL and addresses. Web3 and transport errors are turned into
`ServiceUnavailable` (retryable) or `ChainError` here and nowhere else in this work.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from eth_abi import decode, encode
from eth_utils import to_checksum_address

from ledger.artifacts import load_artifact
from ledger.errors import ChainError, ServiceUnavailable
from ledger.protocol.hexcodec import from_hex, to_hex

_LEDGER = load_artifact("MatchLedger")
_TOKEN = load_artifact("CardToken")

# selectors and topics come from the compiled ABIs; the view functions and the BatchAnchored event
# are the same on the first release's contracts, so these work against those too
ANCHOR = _LEDGER.selector("anchor")
BATCH_ROOT = _LEDGER.selector("batchRoot")
BATCH_ANCHOR_BLOCK = _LEDGER.selector("batchAnchorBlock")  # not on first-release contracts
HEAD_BATCH_HASH = _LEDGER.selector("headBatchHash")
LATEST_BATCH_ID = _LEDGER.selector("latestBatchId")
WAS_SIGNER_AT = _LEDGER.selector("wasSignerAt")
VERIFY_RESULT = _LEDGER.selector("verifyResult")
EIP712_DOMAIN = _LEDGER.selector("eip712Domain")
BALANCE_OF_BATCH = _TOKEN.selector("balanceOfBatch")

#: The revert `anchor()` gives for a batch id that is already anchored (the worker adopts it).
BATCH_ALREADY_ANCHORED = "MatchLedgerBatchAlreadyAnchored"

BATCH_ANCHORED = _LEDGER.event_topic("BatchAnchored")
TRANSFER_SINGLE = _TOKEN.event_topic("TransferSingle")
TRANSFER_BATCH = _TOKEN.event_topic("TransferBatch")


def anchor_calldata(batch_id: int, root: bytes, count: int, prev_batch_hash: bytes) -> bytes:
    """Calldata of MatchLedger.anchor(batchId, root, count, prevBatchHash)."""
    return ANCHOR + encode(
        ["uint64", "bytes32", "uint32", "bytes32"], [batch_id, root, count, prev_batch_hash]
    )


class RpcError(ChainError):
    """The node answered a JSON-RPC call with an error (a revert carries its data)."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('message', error)}")
        self.error = error

    @property
    def revert_data(self) -> bytes | None:
        """The revert data, if this is a reverted call."""
        data = self.error.get("data")
        if isinstance(data, dict):
            data = data.get("data")
        if isinstance(data, str) and data.startswith("0x"):
            return from_hex(data)
        return None

    @property
    def revert_name(self) -> str | None:
        """The custom error name of a revert (any error in MatchLedger's ABI)."""
        data = self.revert_data
        decoded = _LEDGER.decode_error(data) if data else None
        return decoded[0] if decoded else None


class Rpc:
    """A minimal JSON-RPC client over HTTP (keep-alive-free urllib; one call per request)."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.url = url
        self.timeout = timeout
        self._id = 0

    def call(self, method: str, *params: Any) -> Any:
        """One JSON-RPC call; ServiceUnavailable if the node can't be reached, RpcError if it refuses."""
        self._id += 1
        body = json.dumps(
            {"jsonrpc": "2.0", "id": self._id, "method": method, "params": list(params)}
        )
        request = urllib.request.Request(
            self.url, body.encode(), {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                reply = json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ServiceUnavailable(
                f"chain at {self.url} does not answer {method}: {exc}"
            ) from exc
        if "error" in reply:
            raise RpcError(method, reply["error"])
        return reply["result"]

    def eth_call(
        self, to: str, data: bytes, block: int | str = "latest", sender: str | None = None
    ) -> bytes:
        """eth_call at `block` (a number or a tag); returns the raw return data."""
        tx: dict[str, str] = {"to": to, "data": to_hex(data)}
        if sender:
            tx["from"] = sender
        tag = hex(block) if isinstance(block, int) else block
        return from_hex(self.call("eth_call", tx, tag))

    def chain_id(self) -> int:
        """eth_chainId."""
        return int(self.call("eth_chainId"), 16)

    def block_number(self) -> int:
        """The latest block number."""
        return int(self.call("eth_blockNumber"), 16)

    def block(self, number: int | str) -> dict[str, Any] | None:
        """A block header (no transactions) by number or tag."""
        tag = hex(number) if isinstance(number, int) else number
        result: dict[str, Any] | None = self.call("eth_getBlockByNumber", tag, False)
        return result

    def block_hash(self, number: int) -> str | None:
        """The canonical hash of block `number` (None if it does not exist)."""
        block = self.block(number)
        return None if block is None else str(block["hash"])

    def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        """A transaction receipt, or None if not mined."""
        result: dict[str, Any] | None = self.call("eth_getTransactionReceipt", tx_hash)
        return result

    def transaction(self, tx_hash: str) -> dict[str, Any] | None:
        """A transaction (pending or mined), or None if the node doesn't know it."""
        result: dict[str, Any] | None = self.call("eth_getTransactionByHash", tx_hash)
        return result

    def nonce(self, address: str, block: str = "latest") -> int:
        """The account's transaction count at `block` ("latest" or "pending")."""
        return int(self.call("eth_getTransactionCount", address, block), 16)

    def logs(
        self, address: str, topics: list[Any], from_block: int, to_block: int | str
    ) -> list[dict[str, Any]]:
        """eth_getLogs for one contract."""
        params = {
            "address": address,
            "topics": topics,
            "fromBlock": hex(from_block),
            "toBlock": hex(to_block) if isinstance(to_block, int) else to_block,
        }
        result: list[dict[str, Any]] = self.call("eth_getLogs", params)
        return result

    def send_raw(self, raw_tx: str) -> str:
        """Broadcast signed bytes; an already known or already mined transaction is not an error."""
        try:
            return str(self.call("eth_sendRawTransaction", raw_tx))
        except RpcError as exc:
            message = str(exc.error.get("message", "")).lower()
            if "already" in message or "known" in message or "nonce too low" in message:
                return ""
            raise


@dataclass(frozen=True)
class AnchoredBatch:
    """A BatchAnchored event as found on-chain."""

    batch_id: int
    root: bytes
    count: int
    prev_batch_hash: bytes
    batch_hash: bytes
    block_number: int
    block_hash: str
    tx_hash: str


def decode_batch_anchored(log: dict[str, Any]) -> AnchoredBatch:
    """Decode one BatchAnchored log."""
    count, prev, bhash = decode(["uint32", "bytes32", "bytes32"], from_hex(log["data"]))
    return AnchoredBatch(
        batch_id=int(log["topics"][1], 16),
        root=from_hex(log["topics"][2]),
        count=int(count),
        prev_batch_hash=bytes(prev),
        batch_hash=bytes(bhash),
        block_number=int(log["blockNumber"], 16),
        block_hash=str(log["blockHash"]),
        tx_hash=str(log["transactionHash"]),
    )


class MatchLedgerClient:
    """Read calls and event queries on one MatchLedger contract."""

    def __init__(self, rpc: Rpc, address: str) -> None:
        self.rpc = rpc
        self.address = to_checksum_address(address)

    def batch_root(self, batch_id: int, block: int | str = "latest") -> bytes:
        """The root anchored for `batch_id` (zero bytes if none)."""
        return bytes(
            self.rpc.eth_call(self.address, BATCH_ROOT + encode(["uint64"], [batch_id]), block)[:32]
        )

    def batch_anchor_block(self, batch_id: int) -> int | None:
        """The block batch `batch_id` was anchored in (0 if it isn't), or None if the contract has
        no `batchAnchorBlock` (a first-release MatchLedger)."""
        data = BATCH_ANCHOR_BLOCK + encode(["uint64"], [batch_id])
        try:
            raw = self.rpc.eth_call(self.address, data)
        except RpcError:  # no such function: the call reverts without data
            return None
        return int(decode(["uint256"], raw)[0]) if len(raw) == 32 else None

    def anchored_batch(
        self, batch_id: int, hint_block: int | None = None, from_block: int = 0
    ) -> AnchoredBatch | None:
        """The BatchAnchored event of `batch_id` (None if not anchored), read from the one block the
        contract recorded for it. On a first-release MatchLedger: from `hint_block` (e.g. a bundle's
        anchoring block) when the event is there, else by a scan from `from_block`."""
        block = self.batch_anchor_block(batch_id)
        if block == 0:
            return None
        found: list[AnchoredBatch] = []
        if block is not None:
            found = self.anchored_batches(block, block, batch_id)
        else:
            if hint_block is not None:
                found = self.anchored_batches(hint_block, hint_block, batch_id)
            if not found:
                found = self.anchored_batches(from_block, "latest", batch_id)
        return found[-1] if found else None

    def head_batch_hash(self, block: int | str = "latest") -> bytes:
        """The hash of the latest anchored batch (zero before batch 1)."""
        return bytes(self.rpc.eth_call(self.address, HEAD_BATCH_HASH, block)[:32])

    def latest_batch_id(self, block: int | str = "latest") -> int:
        """The latest anchored batch id (0 if none)."""
        return int(decode(["uint64"], self.rpc.eth_call(self.address, LATEST_BATCH_ID, block))[0])

    def was_signer_at(self, signer: str, block_number: int) -> bool:
        """Whether `signer` was an authorised result signer at the end of `block_number`."""
        data = WAS_SIGNER_AT + encode(
            ["address", "uint48"], [to_checksum_address(signer), block_number]
        )
        return bool(decode(["bool"], self.rpc.eth_call(self.address, data))[0])

    def verify_result(self, batch_id: int, digest: bytes, proof: list[bytes]) -> bool:
        """MatchLedger.verifyResult(batchId, digest, proof)."""
        data = VERIFY_RESULT + encode(["uint64", "bytes32", "bytes32[]"], [batch_id, digest, proof])
        return bool(decode(["bool"], self.rpc.eth_call(self.address, data))[0])

    def eip712_domain(self) -> dict[str, Any]:
        """The contract's ERC-5267 eip712Domain()."""
        raw = self.rpc.eth_call(self.address, EIP712_DOMAIN)
        _fields, name, version, chain_id, contract, _salt, _ext = decode(
            ["bytes1", "string", "string", "uint256", "address", "bytes32", "uint256[]"], raw
        )
        return {
            "name": name,
            "version": version,
            "chainId": int(chain_id),
            "verifyingContract": to_checksum_address(contract),
        }

    def anchored_batches(
        self, from_block: int = 0, to_block: int | str = "latest", batch_id: int | None = None
    ) -> list[AnchoredBatch]:
        """BatchAnchored events (optionally of one batch id), in chain order."""
        topics: list[Any] = [BATCH_ANCHORED]
        if batch_id is not None:
            topics.append(to_hex(encode(["uint64"], [batch_id])))
        return [
            decode_batch_anchored(log)
            for log in self.rpc.logs(self.address, topics, from_block, to_block)
            if not log.get("removed")
        ]

    def simulate_anchor(
        self, sender: str, batch_id: int, root: bytes, count: int, prev: bytes
    ) -> str | None:
        """Dry-run anchor(): None if it would succeed, else the custom error's name."""
        try:
            self.rpc.eth_call(
                self.address, anchor_calldata(batch_id, root, count, prev), "latest", sender
            )
        except RpcError as exc:
            return exc.revert_name or str(exc)
        return None


def balance_of_batch(
    rpc: Rpc, token: str, owners: list[str], ids: list[int], block: int
) -> list[int]:
    """CardToken.balanceOfBatch(owners, ids) at `block` (one eth_call)."""
    data = BALANCE_OF_BATCH + encode(
        ["address[]", "uint256[]"], [[to_checksum_address(o) for o in owners], ids]
    )
    return [
        int(v)
        for v in decode(["uint256[]"], rpc.eth_call(to_checksum_address(token), data, block))[0]
    ]
