"""Deck commitments: a canonical deck list, its owner, and the pinned block of its ownership check."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow


class DeckCommitment(SQLModel, table=True):
    """A deck whose rules and ownership were checked at `block_number` / `block_hash`."""

    __tablename__ = "deck_commitments"

    id: str = Field(primary_key=True, max_length=36)
    owner: str = Field(foreign_key="wallets.address", index=True, max_length=42)
    game: str = Field(max_length=32)
    ruleset_version: str = Field(max_length=64)
    #: keccak256 of the canonical deck JSON (the `deck0`/`deck1` of a signed result)
    deck_hash: str = Field(index=True, max_length=66)
    #: the canonical deck list: card id -> copies
    cards: dict[str, int] = Field(sa_column=Column(JSON, nullable=False))
    #: the tokens this deck needs: card id -> copies (the engine's required_tokens)
    required: dict[str, int] = Field(sa_column=Column(JSON, nullable=False))
    #: token id hex -> balance held at the pinned block (for the tokens required)
    held: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    block_number: int
    block_hash: str = Field(max_length=66)
    created_at: datetime = Field(default_factory=utcnow)
