"""The queries of the transfer index: the cursor, the indexed transfers and the balances they
add up to. Helpers never commit; the indexer commits the cursor with the rows it covers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, insert, select
from sqlmodel import Session, col

from ledger.db.models.indexing import IndexerCursor, TokenBalance, TokenTransfer, utcnow


def cursor_block(db: Session, contract: str) -> int | None:
    """The last block indexed for `contract` (None before the first pass)."""
    cursor = db.get(IndexerCursor, contract)
    return None if cursor is None else int(cursor.last_block)


def save_cursor(db: Session, contract: str, chain_id: int, block: int, block_hash: str) -> None:
    """Record that `contract` is indexed up to `block` (whose hash is `block_hash`)."""
    cursor = db.get(IndexerCursor, contract)
    if cursor is None:
        cursor = IndexerCursor(
            contract=contract, chain_id=chain_id, last_block=block, last_block_hash=block_hash
        )
        db.add(cursor)
    cursor.last_block, cursor.last_block_hash, cursor.updated_at = block, block_hash, utcnow()


def last_transfer_below(db: Session, block: int) -> tuple[int, str] | None:
    """(block number, block hash) of the newest indexed transfer below `block`."""
    row = db.execute(
        select(col(TokenTransfer.block_number), col(TokenTransfer.block_hash))
        .where(col(TokenTransfer.block_number) < block)
        .order_by(col(TokenTransfer.block_number).desc())
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]), str(row[1]))


def add_transfers(db: Session, rows: list[dict[str, Any]]) -> None:
    """Store decoded transfer rows."""
    if rows:
        db.execute(insert(TokenTransfer), rows)


def remove_transfers_from(db: Session, block: int) -> list[dict[str, Any]]:
    """Delete the transfers of `block` and later; their (from, to, token id, amount)."""
    removed = [
        dict(r._mapping)
        for r in db.execute(
            select(
                col(TokenTransfer.from_address),
                col(TokenTransfer.to_address),
                col(TokenTransfer.token_id),
                col(TokenTransfer.amount),
            ).where(col(TokenTransfer.block_number) >= block)
        )
    ]
    if removed:
        db.execute(delete(TokenTransfer).where(col(TokenTransfer.block_number) >= block))
    return removed


def change_balances(
    db: Session, deltas: Mapping[tuple[str, str], int], blocks: Mapping[tuple[str, str], int]
) -> None:
    """Add each (owner, token id) delta to its balance (a balance that reaches 0 is deleted),
    noting the block of the newest change."""
    for (owner, token_id), delta in deltas.items():
        if delta == 0:
            continue
        balance = db.get(TokenBalance, (owner, token_id))
        if balance is None:
            balance = TokenBalance(owner=owner, token_id=token_id, amount=0, updated_block=0)
            db.add(balance)
        balance.amount += delta
        balance.updated_block = max(balance.updated_block, blocks[(owner, token_id)])
        if balance.amount == 0:
            db.delete(balance)
        db.flush()
