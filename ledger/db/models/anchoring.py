"""Anchored batches of results and each result's inclusion proof (written by the anchoring worker)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import JSON, BigInteger, Column, Text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (what these timestamp columns store)."""
    return datetime.now(UTC)


class BatchStatus(StrEnum):
    """Life cycle of a batch.

    closed -> signed (nonce and raw tx stored, maybe broadcast) -> mined (receipt seen, waiting
    for confirmations) -> confirmed (final; proofs are served). A confirmed or mined batch whose
    transaction leaves the canonical chain goes back to signed (the same bytes are re-sent, or a
    new transaction is signed once the old nonce is used by something else). A batch whose id was
    taken on-chain by a different root is superseded and its results are batched again.
    """

    CLOSED = "closed"
    SIGNED = "signed"
    MINED = "mined"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"


class Batch(SQLModel, table=True):
    """One Merkle batch; `id` is the on-chain batch id (1, 2, 3 ...)."""

    __tablename__ = "batches"

    id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    #: MatchLedger address and chain id the batch is anchored on
    chain_id: int
    ledger_address: str = Field(max_length=42)
    root: str = Field(max_length=66)
    count: int
    prev_batch_hash: str = Field(max_length=66)
    #: keccak256(abi.encode(prevBatchHash, batchId, root, count))
    batch_hash: str = Field(max_length=66)
    status: str = Field(default=BatchStatus.CLOSED, index=True, max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    # the current anchor transaction: recorded before it is broadcast, never re-signed on retry
    anchorer: str | None = Field(default=None, max_length=42)
    nonce: int | None = None
    raw_tx: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    tx_hash: str | None = Field(default=None, index=True, max_length=66)
    #: how many transactions were signed for this batch (more than 1 only after a drop)
    attempts: int = Field(default=0)
    signed_at: datetime | None = None
    # where the anchor landed
    block_number: int | None = None
    block_hash: str | None = Field(default=None, max_length=66)
    gas_used: int | None = None
    confirmed_at: datetime | None = None
    #: times the anchor left the canonical chain (reorg or drop) and was re-anchored
    reorgs: int = Field(default=0)


class ResultProof(SQLModel, table=True):
    """A result's place in its batch: tree index and the Merkle proof (sibling hashes)."""

    __tablename__ = "result_proofs"

    result_id: int = Field(foreign_key="results.id", primary_key=True)
    batch_id: int = Field(foreign_key="batches.id", index=True)
    digest: str = Field(max_length=66)
    tree_index: int
    proof: list[str] = Field(sa_column=Column(JSON, nullable=False))


class AnchorTransaction(SQLModel, table=True):
    """One signed anchor transaction of a batch, recorded before it is broadcast: the first one
    and every replacement (same nonce, higher fees). Whichever of them is mined anchors the batch."""

    __tablename__ = "anchor_transactions"

    id: int | None = Field(default=None, primary_key=True)
    batch_id: int = Field(foreign_key="batches.id", index=True)
    nonce: int
    tx_hash: str = Field(max_length=66, unique=True)
    raw_tx: str = Field(sa_column=Column(Text, nullable=False))
    max_fee_per_gas: int = Field(sa_column=Column(BigInteger, nullable=False))
    max_priority_fee_per_gas: int = Field(sa_column=Column(BigInteger, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
