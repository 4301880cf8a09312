"""Indexed CardToken transfers, balances and the indexer's cursor (written by the indexer worker)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, Column, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (what these timestamp columns store)."""
    return datetime.now(UTC)


class IndexerCursor(SQLModel, table=True):
    """How far the indexer has read one contract's events (inclusive)."""

    __tablename__ = "indexer_cursors"

    #: the indexed contract's checksummed address
    contract: str = Field(primary_key=True, max_length=42)
    chain_id: int
    last_block: int
    last_block_hash: str = Field(max_length=66)
    updated_at: datetime = Field(default_factory=utcnow)


class TokenTransfer(SQLModel, table=True):
    """One (id, amount) movement of a TransferSingle or TransferBatch event.

    Token ids are 0x-prefixed 64-digit hex (as `card_designs.token_id`); addresses checksummed.
    """

    __tablename__ = "token_transfers"
    __table_args__ = (
        UniqueConstraint("tx_hash", "log_index", "item_index", name="uq_token_transfers_log_item"),
    )

    id: int | None = Field(default=None, primary_key=True)
    block_number: int = Field(index=True)
    block_hash: str = Field(max_length=66)
    tx_hash: str = Field(max_length=66)
    log_index: int
    #: position in a TransferBatch's arrays (0 for TransferSingle)
    item_index: int = Field(default=0)
    operator: str = Field(max_length=42)
    from_address: str = Field(index=True, max_length=42)
    to_address: str = Field(index=True, max_length=42)
    token_id: str = Field(index=True, max_length=66)
    amount: int = Field(sa_column=Column(BigInteger, nullable=False))


class TokenBalance(SQLModel, table=True):
    """An owner's balance of one token id, as of the indexer cursor (zero rows are deleted)."""

    __tablename__ = "token_balances"

    owner: str = Field(primary_key=True, max_length=42)
    token_id: str = Field(primary_key=True, max_length=66)
    amount: int = Field(sa_column=Column(BigInteger, nullable=False))
    updated_block: int
