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
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, insert, select
from sqlmodel import Session, col

from ledger.chain.contracts import ZERO_ADDRESS, CardToken
from ledger.chain.transport import JsonRpc
from ledger.db import unit_of_work
from ledger.db.models.indexing import IndexerCursor, TokenBalance, TokenTransfer, utcnow

log = logging.getLogger(__name__)


@dataclass
class IndexReport:
    """What one indexer pass did."""

    from_block: int = 0
    to_block: int = 0
    removed: int = 0
    added: int = 0
    rebuilt: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        return dict(self.__dict__)


class Indexer:
    """Follows one CardToken contract."""

    def __init__(
        self,
        engine: Engine,
        rpc: JsonRpc,
        token_address: str,
        deployment_block: int,
        reorg_depth: int = 12,
        chain_id: int | None = None,
        max_range: int = 2000,
    ) -> None:
        self.engine = engine
        self.rpc = rpc
        self.card_token = CardToken(rpc, token_address)
        self.token = self.card_token.address
        self.deployment_block = deployment_block
        self.reorg_depth = reorg_depth
        self.max_range = max_range
        self._chain_id = chain_id

    def run_once(self) -> IndexReport:
        """Index from the cursor (minus K blocks) up to the chain head."""
        report = IndexReport()
        head = self.rpc.block_number()
        with unit_of_work(self.engine) as session:
            cursor = session.get(IndexerCursor, self.token)
            start = (
                self.deployment_block
                if cursor is None
                else max(self.deployment_block, min(cursor.last_block, head) - self.reorg_depth + 1)
            )
            if cursor is not None and self._deeper_reorg(session, start):
                log.warning(
                    "reorg deeper than %s blocks: rebuilding the transfer index", self.reorg_depth
                )
                start, report.rebuilt = self.deployment_block, True
        report.from_block, report.to_block = start, head
        chunks = [
            (a, min(head, a + self.max_range - 1)) for a in range(start, head + 1, self.max_range)
        ]
        for k, (a, b) in enumerate(chunks or [(start, start - 1)]):
            rows = self.card_token.transfers(a, b) if b >= a else []
            last = max(b, 0)
            last_hash = self.rpc.block_hash(last) or "0x" + "00" * 32
            with unit_of_work(self.engine) as session:
                if k == 0:  # the rewind and the first re-read commit together
                    report.removed = self._rewind(session, start)
                self._apply(session, rows, +1)
                self._save_cursor(session, last, last_hash)
            report.added += len(rows)
        return report

    def _deeper_reorg(self, session: Session, start: int) -> bool:
        below = session.execute(
            select(col(TokenTransfer.block_number), col(TokenTransfer.block_hash))
            .where(col(TokenTransfer.block_number) < start)
            .order_by(col(TokenTransfer.block_number).desc())
            .limit(1)
        ).first()
        return below is not None and self.rpc.block_hash(below[0]) != below[1]

    def _rewind(self, session: Session, start: int) -> int:
        """Delete transfers from `start` on and reverse their balance changes."""
        old = [
            dict(r._mapping)
            for r in session.execute(
                select(
                    col(TokenTransfer.from_address),
                    col(TokenTransfer.to_address),
                    col(TokenTransfer.token_id),
                    col(TokenTransfer.amount),
                ).where(col(TokenTransfer.block_number) >= start)
            )
        ]
        if old:
            session.execute(delete(TokenTransfer).where(col(TokenTransfer.block_number) >= start))
            self._apply(session, old, -1, insert_rows=False)
        return len(old)

    def _apply(
        self, session: Session, rows: list[dict[str, Any]], sign: int, insert_rows: bool = True
    ) -> None:
        if not rows:
            return
        if insert_rows:
            session.execute(insert(TokenTransfer), rows)
        deltas: dict[tuple[str, str], int] = defaultdict(int)
        last_block: dict[tuple[str, str], int] = {}
        for row in rows:
            for owner, direction in ((row["from_address"], -1), (row["to_address"], +1)):
                if owner != ZERO_ADDRESS:
                    key = (owner, row["token_id"])
                    deltas[key] += sign * direction * int(row["amount"])
                    last_block[key] = max(last_block.get(key, 0), row.get("block_number", 0))
        for (owner, token_id), delta in deltas.items():
            if delta == 0:
                continue
            balance = session.get(TokenBalance, (owner, token_id))
            if balance is None:
                balance = TokenBalance(owner=owner, token_id=token_id, amount=0, updated_block=0)
                session.add(balance)
            balance.amount += delta
            balance.updated_block = max(balance.updated_block, last_block[(owner, token_id)])
            if balance.amount == 0:
                session.delete(balance)
            session.flush()

    def _save_cursor(self, session: Session, last_block: int, last_hash: str) -> None:
        cursor = session.get(IndexerCursor, self.token)
        if cursor is None:
            cursor = IndexerCursor(
                contract=self.token,
                chain_id=self.chain_id,
                last_block=last_block,
                last_block_hash=last_hash,
            )
            session.add(cursor)
        cursor.last_block, cursor.last_block_hash, cursor.updated_at = (
            last_block,
            last_hash,
            utcnow(),
        )

    @property
    def chain_id(self) -> int:
        """The chain id (asked once)."""
        if self._chain_id is None:
            self._chain_id = self.rpc.chain_id()
        return self._chain_id


def from_settings(engine: Engine | None = None) -> Indexer:
    """An Indexer for the configured database, chain and deployment."""
    from ledger.chain.deployment import load_addresses
    from ledger.db import get_engine
    from ledger.settings import get_settings

    settings = get_settings()
    addresses = load_addresses(settings.resolved_deployment_file)
    return Indexer(
        engine or get_engine(),
        JsonRpc.from_settings(settings),
        addresses.card_token,
        addresses.deployment_block,
        settings.indexer_reorg_depth,
        addresses.chain_id,
        max_range=settings.rpc_max_log_range,
    )
