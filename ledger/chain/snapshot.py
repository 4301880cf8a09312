"""A read-only view of the chain as of one block, with every answer remembered: what a bulk
audit shares between the bundles it checks (the chain id, the MatchLedger's domain, the batch
events and roots, signer registrations, block hashes), read once instead of once per bundle;
and the reads of a few bundles asked ahead in one JSON-RPC batch (`prefetch`).

`latest` is pinned to the head block when the snapshot is taken, so that every bundle of a run
is checked against the same chain state (a batch anchored after that block is not seen)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from typing import Any

from ledger.chain.transport import JsonRpc
from ledger.errors import ServiceUnavailable

#: read methods whose answer at a fixed block never changes
_PURE = frozenset(
    {
        "eth_chainId",
        "eth_call",
        "eth_getLogs",
        "eth_getBlockByNumber",
        "eth_getBlockByHash",
        "eth_getCode",
    }
)


class SnapshotRpc(JsonRpc):
    """A JsonRpc pinned to the head at the time of `pin()`, memoising every pure read."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self.pinned: int | None = None
        self._memo: dict[str, Any] = {}
        self._memo_lock = threading.Lock()
        self.calls = 0
        self.hits = 0

    def pin(self, head: int | None = None) -> int:
        """Pin `latest` to block `head` (default: the node's head now); the pinned number."""
        if head is None:
            head = self._int("eth_blockNumber", JsonRpc.call(self, "eth_blockNumber"))
        self.pinned = head
        return head

    def call(self, method: str, *params: Any) -> Any:
        """A pure read from the memo (asked once, with `latest` pinned); others go to the node."""
        head = self.pinned if self.pinned is not None else self.pin()
        if method == "eth_blockNumber":
            return hex(head)
        pinned = tuple(_pin_latest(p, head) for p in params)
        if method not in _PURE:
            return JsonRpc.call(self, method, *pinned)
        key = _key(method, pinned)
        with self._memo_lock:
            self.calls += 1
            if key in self._memo:
                self.hits += 1
                return self._memo[key]
        result = JsonRpc.call(self, method, *pinned)
        with self._memo_lock:
            self._memo[key] = result
        return result

    def prefetch(self, reads: Iterable[tuple[str, tuple[Any, ...]]]) -> int:
        """Ask the node the pure reads among `reads` (method, params) not remembered yet in one
        JSON-RPC batch, and remember its answers: `call` then finds them. A read the node refuses
        or leaves out, or a node that does not answer batches, is left to `call`, which asks it
        alone and reports what goes wrong; how many answers were remembered."""
        head = self.pinned if self.pinned is not None else self.pin()
        asked: dict[int, str] = {}  # request id -> memo key
        keys: set[str] = set()
        batch: list[dict[str, Any]] = []
        for method, params in reads:
            if method not in _PURE:
                continue
            pinned = tuple(_pin_latest(p, head) for p in params)
            key = _key(method, pinned)
            if key in self._memo or key in keys:
                continue
            keys.add(key)
            batch.append(self.request(method, pinned))
            asked[batch[-1]["id"]] = key
        if not batch:
            return 0
        try:
            replies = json.loads(self._post("a batch of reads", json.dumps(batch).encode()))
        except (ServiceUnavailable, ValueError):  # e.g. a provider that refuses batches
            return 0
        kept = 0
        for reply in replies if isinstance(replies, list) else []:
            answer_id = reply.get("id") if isinstance(reply, dict) else None
            known = asked.get(answer_id) if type(answer_id) is int else None
            if known is not None and reply.get("error") is None and "result" in reply:
                with self._memo_lock:
                    self._memo[known] = reply["result"]
                kept += 1
        return kept


def _key(method: str, pinned: tuple[Any, ...]) -> str:
    return method + json.dumps(pinned, sort_keys=True, separators=(",", ":"))


def _pin_latest(param: Any, head: int) -> Any:
    """`param` with the block tag "latest" (also inside a log filter) replaced by `head`."""
    if param == "latest":
        return hex(head)
    if isinstance(param, dict) and param.get("toBlock") == "latest":
        return {**param, "toBlock": hex(head)}
    return param
