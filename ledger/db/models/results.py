"""Signed match results and the outbox the anchoring worker drains."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow


class MatchResult(SQLModel, table=True):
    """An operator-signed EIP-712 MatchResult; `digest` is also the result's Merkle leaf value."""

    __tablename__ = "results"

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(foreign_key="matches.id", unique=True, max_length=66)
    # EIP-712 domain
    chain_id: int
    verifying_contract: str = Field(max_length=42)
    # MatchResult struct fields
    game: str = Field(max_length=32)
    ruleset_version: str = Field(max_length=64)
    player0: str = Field(max_length=42)
    player1: str = Field(max_length=42)
    deck0: str = Field(max_length=66)
    deck1: str = Field(max_length=66)
    seed_commitments: str = Field(max_length=66)
    transcript_hash: str = Field(max_length=66)
    final_state_hash: str = Field(max_length=66)
    winner: str = Field(max_length=42)
    ownership_block: int
    # signature
    digest: str = Field(unique=True, max_length=66)
    signature: str = Field(max_length=132)
    signer: str = Field(max_length=42)
    end_reason: str = Field(max_length=32)
    transcript: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class OutboxEntry(SQLModel, table=True):
    """A result waiting to be anchored (batch_id is set by the anchoring worker)."""

    __tablename__ = "outbox"

    id: int | None = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="results.id", unique=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    batch_id: int | None = Field(default=None, index=True)
