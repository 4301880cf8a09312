"""Concurrent `balanceOfBatch` reads at the same pinned block merged into one eth_call.

Ownership checks of deck registrations arriving together share the head block as their pin
(for the head TTL); while one read is on the wire, the reads that arrive for the same pin wait
and then go together: their owner and token id arrays are concatenated into ONE
`balanceOfBatch` call, and each caller gets its own slice of the answer. So a registration
costs one pinned `balanceOfBatch` or a share of one, and the node sees fewer calls the busier
the API is. A failed read fails every caller of its round (each with the same error)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ledger.chain.transport import BlockId, check_may_wait

#: the most (owner, id) pairs one merged call carries (node limits on calldata and gas)
MAX_PAIRS = 4096

Read = Callable[[Sequence[str], Sequence[int], BlockId], list[int]]


@dataclass
class _Waiter:
    owners: Sequence[str]
    ids: Sequence[int]
    done: threading.Event = field(default_factory=threading.Event)
    result: list[int] | None = None
    error: BaseException | None = None
    #: set when this waiter must send the next round itself
    lead: bool = False


class BalanceCoalescer:
    """Merges concurrent reads at one block into one call of `read`."""

    def __init__(self, read: Read, max_pairs: int = MAX_PAIRS) -> None:
        self.read = read
        self.max_pairs = max_pairs
        self._lock = threading.Lock()
        self._pending: dict[BlockId, list[_Waiter]] = {}
        self._busy: set[BlockId] = set()
        self.calls = 0
        self.reads = 0

    def balances(self, owners: Sequence[str], ids: Sequence[int], block: BlockId) -> list[int]:
        """The balances of (owners[i], ids[i]) at `block`, possibly read together with others."""
        if not ids:
            return []
        check_may_wait("balanceOfBatch")  # before joining a round: a waiter waits for the node
        me = _Waiter(owners, ids)
        with self._lock:
            self.reads += 1
            self._pending.setdefault(block, []).append(me)
            lead = block not in self._busy
            if lead:
                self._busy.add(block)
        if not lead:
            me.done.wait()
            if not me.lead:
                return self._outcome(me)
        self._round(block)
        return self._outcome(me)

    @staticmethod
    def _outcome(me: _Waiter) -> list[int]:
        if me.error is not None:
            raise me.error
        assert me.result is not None
        return me.result

    def _take(self, block: BlockId) -> list[_Waiter]:
        """The next round's waiters (up to max_pairs pairs; at least one)."""
        queue = self._pending[block]
        taken: list[_Waiter] = []
        pairs = 0
        while queue and (not taken or pairs + len(queue[0].ids) <= self.max_pairs):
            waiter = queue.pop(0)
            taken.append(waiter)
            pairs += len(waiter.ids)
        return taken

    def _round(self, block: BlockId) -> None:
        """Send one merged read for the waiters queued at `block`, then hand the lead on."""
        with self._lock:
            batch = self._take(block)
            self.calls += 1
        owners = [o for w in batch for o in w.owners]
        ids = [i for w in batch for i in w.ids]
        try:
            values = self.read(owners, ids, block)
            start = 0
            for w in batch:
                w.result = values[start : start + len(w.ids)]
                start += len(w.ids)
        except BaseException as exc:  # every caller of the round sees the node's answer
            for w in batch:
                w.error = exc
        with self._lock:
            queue = self._pending.get(block)
            successor = queue[0] if queue else None
            if successor is None:
                self._pending.pop(block, None)
                self._busy.discard(block)
            else:
                successor.lead = True
        for w in batch:
            w.done.set()
        if successor is not None:
            successor.done.set()
