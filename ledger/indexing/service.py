"""The CardToken indexer: TransferSingle / TransferBatch events into transfers and balances.

Each pass re-reads the last K blocks below the cursor (deleting what it had from them and
reversing their balance changes) so a reorg of depth <= K heals itself; a deeper one is
detected (a stored transfer's block hash is no longer canonical) and the index is rebuilt from
the deployment block. The cursor (last block and its hash) is committed with the rows it
covers, so a restarted indexer resumes where it stopped.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.chain.contracts import ZERO_ADDRESS, CardToken
from ledger.chain.transport import JsonRpc, OnOneChain
from ledger.db import unit_of_work
from ledger.indexing import repository as repo
from ledger.runtime.report import PassSummary

if TYPE_CHECKING:
    from ledger.chain.deployment import ContractAddresses

log = logging.getLogger(__name__)


def window_start(indexed: int | None, head: int, deployment_block: int, reorg_depth: int) -> int:
    """The first block a pass reads: the deployment block on the first pass, else the last
    `reorg_depth` blocks up to the cursor again (so that a reorg that shallow heals itself)."""
    if indexed is None:
        return deployment_block
    return max(deployment_block, min(indexed, head) - reorg_depth + 1)


@dataclass
class FollowerReport(PassSummary):
    """What every chain follower's pass reports first: the blocks it read."""

    from_block: int = 0
    to_block: int = 0


@dataclass
class IndexReport(FollowerReport):
    """What one indexer pass did."""

    removed: int = 0
    added: int = 0
    rebuilt: bool = False
    #: the wallets whose balances the pass changed (net of the re-read window), lowercase
    wallets: list[str] = field(default_factory=list)


@dataclass(eq=False)
class ChainFollower(OnOneChain):
    """What every indexer of one deployment holds: its database, its node, the block the
    contracts were deployed in, how deep a reorg each pass heals (see `window_start`) and the
    chain id if known (else asked once)."""

    engine: Engine
    rpc: JsonRpc
    deployment_block: int
    reorg_depth: int
    _chain_id: int | None

    def window_start(self, indexed: int | None, head: int) -> int:
        """The first block this pass reads, given the cursor (`indexed`) and the head."""
        return window_start(indexed, head, self.deployment_block, self.reorg_depth)


def configured_deployment(engine: Engine | None) -> tuple[Engine, JsonRpc, ContractAddresses, int]:
    """The database engine (`engine`, else the configured one), the configured node, the
    deployment's addresses and the configured reorg depth: what `*_from_settings` build from."""
    from ledger.chain.deployment import load_addresses
    from ledger.db import get_engine
    from ledger.settings import get_settings

    settings = get_settings()
    addresses = load_addresses(settings.resolved_deployment_file)
    rpc = JsonRpc.from_settings(settings)
    return engine or get_engine(), rpc, addresses, settings.indexer_reorg_depth


class Indexer(ChainFollower):
    """Follows one CardToken contract."""

    def __init__(
        self,
        engine: Engine,
        rpc: JsonRpc,
        token_address: str,
        deployment_block: int,
        reorg_depth: int = 12,
        chain_id: int | None = None,
    ) -> None:
        super().__init__(engine, rpc, deployment_block, reorg_depth, chain_id)
        self.card_token = CardToken(rpc, token_address)
        self.token = self.card_token.address
        self._net: defaultdict[tuple[str, str], int] = defaultdict(int)

    def run_once(self) -> IndexReport:
        """Index from the cursor (minus K blocks) up to the chain head."""
        report = IndexReport()
        self._net.clear()
        head, chain_id = self.rpc.block_number(), self.chain_id  # no RPC inside a transaction
        with unit_of_work(self.engine, write=False) as session:
            indexed = repo.cursor_block(session, self.token)
            start = self.window_start(indexed, head)
            below = None if indexed is None else repo.last_transfer_below(session, start)
        if below is not None and self.rpc.block_hash(below[0]) != below[1]:
            log.warning(
                "reorg deeper than %s blocks: rebuilding the transfer index", self.reorg_depth
            )
            start, report.rebuilt = self.deployment_block, True
        report.from_block, report.to_block = start, head
        # one eth_getLogs chunk at a time (at most rpc.max_log_range blocks, halved while the
        # provider refuses), each committed with the cursor: a pass that fails resumes there
        chunks = self.card_token.transfer_chunks(start, head) if head >= start else iter(())
        first = True
        for _a, b, rows in chunks:
            self._commit_chunk(report, first, start, b, rows, chain_id)
            first = False
        if first:  # nothing to read: the rewind alone, the cursor at the head
            self._commit_chunk(report, True, start, max(start - 1, 0), [], chain_id)
        report.wallets = sorted({owner.lower() for (owner, _), d in self._net.items() if d})
        return report

    def _commit_chunk(
        self,
        report: IndexReport,
        first: bool,
        start: int,
        last: int,
        rows: list[dict[str, Any]],
        chain_id: int,
    ) -> None:
        """Store one chunk's transfers and move the cursor to its last block, in one transaction
        (the first chunk's with the rewind of the re-read window)."""
        last_hash = self.rpc.block_hash(last) or "0x" + "00" * 32
        with unit_of_work(self.engine) as session:
            if first:
                report.removed = self._rewind(session, start)
            repo.add_transfers(session, rows)
            self._apply(session, rows, +1)
            repo.save_cursor(session, self.token, chain_id, last, last_hash)
        report.added += len(rows)

    def _rewind(self, session: Session, start: int) -> int:
        """Delete transfers from `start` on and reverse their balance changes."""
        removed = repo.remove_transfers_from(session, start)
        self._apply(session, removed, -1)
        return len(removed)

    def _apply(self, session: Session, rows: list[dict[str, Any]], sign: int) -> None:
        """Add (sign +1) or take back (-1) the balance changes of transfer rows."""
        deltas: dict[tuple[str, str], int] = defaultdict(int)
        last_block: dict[tuple[str, str], int] = {}
        for row in rows:
            for owner, direction in ((row["from_address"], -1), (row["to_address"], +1)):
                if owner != ZERO_ADDRESS:
                    key = (owner, row["token_id"])
                    deltas[key] += sign * direction * int(row["amount"])
                    last_block[key] = max(last_block.get(key, 0), row.get("block_number", 0))
        repo.change_balances(session, deltas, last_block)
        for key, delta in deltas.items():
            self._net[key] += delta


def from_settings(engine: Engine | None = None) -> Indexer:
    """An Indexer for the configured database, chain and deployment."""
    engine, rpc, addresses, reorg_depth = configured_deployment(engine)
    return Indexer(
        engine,
        rpc,
        addresses.card_token,
        addresses.deployment_block,
        reorg_depth,
        addresses.chain_id,
    )
