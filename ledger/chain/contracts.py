"""Bindings of the deployed contracts over the one transport (`ledger.chain.transport`).

Selectors, event topics and error names come from the shipped artifacts (`ledger.chain.artifacts`);
calls are ABI-encoded here with eth_abi, so the API, the workers and the verifier need only an RPC
URL and addresses. The read functions and the BatchAnchored event are the same on the first
release's contracts, so these bindings read those too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from eth_abi import decode, encode
from eth_hash.auto import keccak
from eth_utils import to_checksum_address

from ledger.chain.artifacts import decode_revert, load_artifact
from ledger.chain.transport import BlockId, JsonRpc, RpcError, eth_call_params
from ledger.errors import ChainError
from ledger.protocol.hexcodec import from_hex, to_hex, uint256_hex

_LEDGER = load_artifact("MatchLedger")
_TOKEN = load_artifact("CardToken")

ANCHOR = _LEDGER.selector("anchor")
BATCH_ROOT = _LEDGER.selector("batchRoot")
BATCH_ANCHOR_BLOCK = _LEDGER.selector("batchAnchorBlock")  # not on first-release contracts
HEAD_BATCH_HASH = _LEDGER.selector("headBatchHash")
LATEST_BATCH_ID = _LEDGER.selector("latestBatchId")
WAS_SIGNER_AT = _LEDGER.selector("wasSignerAt")
IS_SIGNER = _LEDGER.selector("isSigner")
VERIFY_RESULT = _LEDGER.selector("verifyResult")
EIP712_DOMAIN = _LEDGER.selector("eip712Domain")
BALANCE_OF_BATCH = _TOKEN.selector("balanceOfBatch")

#: The revert `anchor()` gives for a batch id that is already anchored (the worker adopts it).
BATCH_ALREADY_ANCHORED = _LEDGER.error("MatchLedgerBatchAlreadyAnchored")

BATCH_ANCHORED = _LEDGER.event_topic("BatchAnchored")
SIGNER_ADDED = _LEDGER.event_topic("SignerAdded")
SIGNER_REMOVED = _LEDGER.event_topic("SignerRemoved")
TRANSFER_SINGLE = _TOKEN.event_topic("TransferSingle")
TRANSFER_BATCH = _TOKEN.event_topic("TransferBatch")

#: EIP-1271: `isValidSignature(bytes32,bytes)` of a contract wallet (a standard interface, not one
#: of ours) returns its own selector, ABI-encoded as bytes32, for a valid signature
IS_VALID_SIGNATURE = keccak(b"isValidSignature(bytes32,bytes)")[:4]
EIP1271_MAGIC = IS_VALID_SIGNATURE + b"\x00" * 28

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"


def _word(value: int) -> str:
    return format(value, "064x")


def encode_balance_of_batch(owners: Sequence[str], token_ids: Sequence[int]) -> bytes:
    """Calldata of `balanceOfBatch(address[],uint256[])`, ABI-encoded by hand (the generic encoder
    costs ~1.5 ms for a 40-card deck; this costs a few microseconds)."""
    n = len(owners)
    if n != len(token_ids):
        raise ValueError("owners and token_ids differ in length")
    parts = [BALANCE_OF_BATCH.hex(), _word(0x40), _word(0x40 + 32 * (n + 1)), _word(n)]
    parts += ["0" * 24 + owner.removeprefix("0x").lower() for owner in owners]
    parts.append(_word(n))
    parts += [_word(t) for t in token_ids]
    return bytes.fromhex("".join(parts))


def decode_uint256_array(data: bytes) -> list[int]:
    """Decode an ABI-encoded single `uint256[]` return value."""
    offset = int.from_bytes(data[0:32], "big")
    n = int.from_bytes(data[offset : offset + 32], "big")
    start = offset + 32
    if len(data) < start + 32 * n:
        raise ValueError("truncated uint256[]")
    return [int.from_bytes(data[start + 32 * i : start + 32 * (i + 1)], "big") for i in range(n)]


def revert_name(exc: RpcError) -> str | None:
    """The custom error name of a reverted call (any deployed contract's), or None."""
    data = exc.revert_data
    decoded = decode_revert(data) if data else None
    return decoded[0] if decoded else None


class CardToken:
    """Reads and transfer events of one CardToken (ERC-1155)."""

    def __init__(self, rpc: JsonRpc, address: str) -> None:
        self.rpc = rpc
        self.address = to_checksum_address(address)

    def balances(
        self, owners: Sequence[str], token_ids: Sequence[int], block: BlockId = "latest"
    ) -> list[int]:
        """`balanceOfBatch(owners, token_ids)` in ONE eth_call at `block` (a BlockRef pins it by
        hash, EIP-1898)."""
        if not token_ids:
            return []
        raw = self.rpc.eth_call(self.address, encode_balance_of_batch(owners, token_ids), block)
        try:
            values = decode_uint256_array(raw)
        except (ValueError, IndexError) as exc:
            raise ChainError(f"balanceOfBatch returned undecodable data: {exc}") from exc
        if len(values) != len(token_ids):
            raise ChainError("balanceOfBatch returned the wrong number of balances")
        return values

    def transfers(self, from_block: int, to_block: int) -> list[dict[str, Any]]:
        """The (id, amount) rows of every TransferSingle / TransferBatch in the block range that
        is still on the canonical chain, in log order."""
        return [row for _a, _b, rows in self.transfer_chunks(from_block, to_block) for row in rows]

    def transfer_chunks(
        self, from_block: int, to_block: int
    ) -> Iterator[tuple[int, int, list[dict[str, Any]]]]:
        """`transfers` one eth_getLogs chunk at a time: (first block, last block, rows)."""
        topics: list[Any] = [[TRANSFER_SINGLE, TRANSFER_BATCH]]
        for a, b, logs in self.rpc.log_chunks(self.address, topics, from_block, to_block):
            yield a, b, [row for e in logs if not e.get("removed") for row in decode_transfer(e)]


def _topic_address(topic: str) -> str:
    return to_checksum_address("0x" + topic[-40:])


def decode_transfer(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The (id, amount) rows of one TransferSingle or TransferBatch log."""
    topics = log["topics"]
    operator, from_, to = (_topic_address(t) for t in topics[1:4])
    data = from_hex(log["data"], "log data")
    if topics[0] == TRANSFER_SINGLE:
        token_id, amount = decode(["uint256", "uint256"], data)
        items = [(int(token_id), int(amount))]
    else:
        ids, amounts = decode(["uint256[]", "uint256[]"], data)
        items = [(int(i), int(a)) for i, a in zip(ids, amounts, strict=True)]
    base = {
        "block_number": int(log["blockNumber"], 16),
        "block_hash": log["blockHash"],
        "tx_hash": log["transactionHash"],
        "log_index": int(log["logIndex"], 16),
        "operator": operator,
        "from_address": from_,
        "to_address": to,
    }
    return [
        {**base, "item_index": k, "token_id": uint256_hex(i), "amount": a}
        for k, (i, a) in enumerate(items)
    ]


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
    count, prev, bhash = decode(["uint32", "bytes32", "bytes32"], from_hex(log["data"], "log data"))
    return AnchoredBatch(
        batch_id=int(log["topics"][1], 16),
        root=from_hex(log["topics"][2], "root"),
        count=int(count),
        prev_batch_hash=bytes(prev),
        batch_hash=bytes(bhash),
        block_number=int(log["blockNumber"], 16),
        block_hash=str(log["blockHash"]),
        tx_hash=str(log["transactionHash"]),
    )


def anchor_calldata(batch_id: int, root: bytes, count: int, prev_batch_hash: bytes) -> bytes:
    """Calldata of MatchLedger.anchor(batchId, root, count, prevBatchHash)."""
    return ANCHOR + encode(
        ["uint64", "bytes32", "uint32", "bytes32"], [batch_id, root, count, prev_batch_hash]
    )


def _verify_result_data(batch_id: int, digest: bytes, proof: list[bytes]) -> bytes:
    return VERIFY_RESULT + encode(["uint64", "bytes32", "bytes32[]"], [batch_id, digest, proof])


class MatchLedger:
    """Read calls, event queries and anchor dry-runs on one MatchLedger."""

    def __init__(self, rpc: JsonRpc, address: str) -> None:
        self.rpc = rpc
        self.address = to_checksum_address(address)

    def _call(self, data: bytes, block: BlockId = "latest") -> bytes:
        return self.rpc.eth_call(self.address, data, block)

    def batch_root(self, batch_id: int, block: BlockId = "latest") -> bytes:
        """The root anchored for `batch_id` (zero bytes if none)."""
        return bytes(self._call(BATCH_ROOT + encode(["uint64"], [batch_id]), block)[:32])

    def batch_anchor_block(self, batch_id: int) -> int | None:
        """The block batch `batch_id` was anchored in (0 if it isn't), or None if the contract has
        no `batchAnchorBlock` (a first-release MatchLedger)."""
        try:
            raw = self._call(BATCH_ANCHOR_BLOCK + encode(["uint64"], [batch_id]))
        except RpcError:  # no such function: the call reverts without data
            return None
        return int(decode(["uint256"], raw)[0]) if len(raw) == 32 else None

    def anchored_batch(
        self,
        batch_id: int,
        hint_block: int | None = None,
        from_block: int = 0,
        to_block: int | str = "latest",
    ) -> AnchoredBatch | None:
        """The BatchAnchored event of `batch_id` (None if not anchored), read from the one block the
        contract recorded for it. On a first-release MatchLedger: from `hint_block` (e.g. a bundle's
        anchoring block) when the event is there, else by a chunked scan of [from_block, to_block]."""
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
                found = self.anchored_batches(from_block, to_block, batch_id)
        return found[-1] if found else None

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

    def head_batch_hash(self, block: BlockId = "latest") -> bytes:
        """The hash of the latest anchored batch (zero before batch 1)."""
        return bytes(self._call(HEAD_BATCH_HASH, block)[:32])

    def latest_batch_id(self, block: BlockId = "latest") -> int:
        """The latest anchored batch id (0 if none)."""
        return int(decode(["uint64"], self._call(LATEST_BATCH_ID, block))[0])

    def was_signer_at(self, signer: str, block_number: int) -> bool:
        """Whether `signer` was an authorised result signer at the end of `block_number`."""
        data = WAS_SIGNER_AT + encode(
            ["address", "uint48"], [to_checksum_address(signer), block_number]
        )
        return bool(decode(["bool"], self._call(data))[0])

    def is_signer(self, signer: str) -> bool:
        """Whether `signer` is an authorised result signer now."""
        data = IS_SIGNER + encode(["address"], [to_checksum_address(signer)])
        return bool(decode(["bool"], self._call(data))[0])

    def signer_changes(self, from_block: int = 0) -> list[tuple[int, str, bool]]:
        """Every SignerAdded (True) / SignerRemoved (False) since `from_block`, in chain order:
        (block, signer, added). A chunked scan: an admin's listing, never on a hot path."""
        topics: list[Any] = [[SIGNER_ADDED, SIGNER_REMOVED]]
        return [
            (
                int(log["blockNumber"], 16),
                _topic_address(log["topics"][1]),
                log["topics"][0] == SIGNER_ADDED,
            )
            for log in self.rpc.logs(self.address, topics, from_block)
            if not log.get("removed")
        ]

    def verify_result(self, batch_id: int, digest: bytes, proof: list[bytes]) -> bool:
        """MatchLedger.verifyResult(batchId, digest, proof)."""
        return bool(decode(["bool"], self._call(_verify_result_data(batch_id, digest, proof)))[0])

    def verify_result_read(
        self, batch_id: int, digest: bytes, proof: list[bytes]
    ) -> tuple[str, tuple[Any, ...]]:
        """The JSON-RPC method and params `verify_result` asks (for a batch of reads asked
        ahead: `SnapshotRpc.prefetch`)."""
        return "eth_call", eth_call_params(
            self.address, _verify_result_data(batch_id, digest, proof)
        )

    def eip712_domain(self) -> dict[str, Any]:
        """The contract's ERC-5267 eip712Domain()."""
        _fields, name, version, chain_id, contract, _salt, _ext = decode(
            ["bytes1", "string", "string", "uint256", "address", "bytes32", "uint256[]"],
            self._call(EIP712_DOMAIN),
        )
        return {
            "name": name,
            "version": version,
            "chainId": int(chain_id),
            "verifyingContract": to_checksum_address(contract),
        }

    def simulate_anchor(
        self, sender: str, batch_id: int, root: bytes, count: int, prev: bytes
    ) -> str | None:
        """Dry-run anchor(): None if it would succeed, else the custom error's name."""
        try:
            self.rpc.eth_call(
                self.address, anchor_calldata(batch_id, root, count, prev), "latest", sender
            )
        except RpcError as exc:
            return revert_name(exc) or str(exc)
        return None


def eip1271_accepts(
    rpc: JsonRpc, wallet: str, digest: bytes, signature: bytes, block: BlockId = "latest"
) -> bool:
    """EIP-1271: whether contract `wallet` accepts `signature` over `digest` (at `block`): True
    only for the magic value returned as an ABI-encoded bytes4; False when the wallet reverts or
    returns anything else. A node that fails is an error (ServiceUnavailable, ChainError), not a
    "no"."""
    calldata = IS_VALID_SIGNATURE + encode(["bytes32", "bytes"], [digest, signature])
    try:
        data = rpc.eth_call(to_checksum_address(wallet), calldata, block)
    except RpcError as exc:
        if exc.revert_data is not None or "revert" in exc.message.lower():
            return False  # the wallet said no
        raise
    return data[:32] == EIP1271_MAGIC
