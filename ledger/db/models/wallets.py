"""Wallets, sign-in nonces and sessions."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow


class Wallet(SQLModel, table=True):
    """An address that has signed in at least once (checksummed)."""

    __tablename__ = "wallets"

    address: str = Field(primary_key=True, max_length=42)
    is_contract: bool = Field(default=False, description="signed in through EIP-1271")
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    #: bumped inside every transaction that commits this wallet's copies to a match, so that
    #: such transactions of one owner serialise (a row lock on PostgreSQL)
    lock_version: int = Field(default=0)


class SigninNonce(SQLModel, table=True):
    """A single-use nonce handed out for one EIP-4361 sign-in message."""

    __tablename__ = "signin_nonces"

    nonce: str = Field(primary_key=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime = Field(index=True)
    used_at: datetime | None = None


class Session(SQLModel, table=True):
    """A signed-in session; only the SHA-256 of the bearer token is stored."""

    __tablename__ = "sessions"

    token_hash: str = Field(primary_key=True, max_length=64)
    address: str = Field(foreign_key="wallets.address", index=True, max_length=42)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    revoked: bool = Field(default=False)
