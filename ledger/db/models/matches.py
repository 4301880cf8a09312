"""Matches, their seats (player, deck, seed commit/reveal) and their actions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text
from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow


class MatchStatus(StrEnum):
    """Life cycle of a match. open/seeding/active are *live* (their decks' copies are committed)."""

    OPEN = "open"  # waiting for an opponent to join
    SEEDING = "seeding"  # both seats taken; seed commit-reveal in progress
    ACTIVE = "active"  # seed derived, engine running
    FINISHED = "finished"  # result signed
    CANCELLED = "cancelled"  # abandoned before it started


LIVE_STATUSES = (MatchStatus.OPEN, MatchStatus.SEEDING, MatchStatus.ACTIVE)


class Match(SQLModel, table=True):
    """One match; `version` counts applied actions and guards every state write."""

    __tablename__ = "matches"

    #: the EIP-712 `matchId`: 0x-prefixed 32 random bytes
    id: str = Field(primary_key=True, max_length=66)
    game: str = Field(index=True, max_length=32)
    ruleset_version: str = Field(max_length=64)
    catalogue_hash: str = Field(max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=MatchStatus.OPEN, index=True, max_length=16)
    created_by: str = Field(foreign_key="wallets.address", index=True, max_length=42)
    #: the seat the operator's bot plays, if any
    bot_seat: int | None = None
    bot_name: str | None = Field(default=None, max_length=32)
    #: keccak256(operator secret); published at creation, before any player commits
    operator_commit: str = Field(max_length=66)
    #: the operator secret; disclosed only once the match has started
    operator_secret: str = Field(max_length=66)
    seed: str | None = Field(default=None, max_length=66)
    ownership_block: int | None = None
    ownership_block_hash: str | None = Field(default=None, max_length=66)
    state: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    version: int = Field(default=0)
    #: the version `state` is a snapshot of; later actions are replayed from match_actions
    state_version: int = Field(default=0)
    #: transcript checkpoint hashes so far (state hash after every CHECKPOINT_EVERY actions)
    checkpoints: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    current_player: int | None = None
    #: prevEntryHash of entry 0 (binds the match id, both seat authorizations and the seed)
    genesis_hash: str | None = Field(default=None, max_length=66)
    #: the hash of the last entry (the genesis hash before the first): what the next move signs
    head_hash: str | None = Field(default=None, max_length=66)
    #: the entry of a resignation or a timeout (it follows the engine's actions)
    forfeit_entry: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True)
    )
    turn_deadline: datetime | None = None
    winner_seat: int | None = None
    end_reason: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class MatchSeat(SQLModel, table=True):
    """A player's seat in a match: who, which deck, and their seed commit / reveal."""

    __tablename__ = "match_seats"
    __table_args__ = (Index("ix_match_seats_address_live", "address", "live"),)

    match_id: str = Field(foreign_key="matches.id", primary_key=True, max_length=66)
    seat: int = Field(primary_key=True)
    address: str = Field(max_length=42)  # indexed with `live`
    deck_id: str | None = Field(default=None, foreign_key="deck_commitments.id", max_length=36)
    deck_hash: str = Field(max_length=66)
    cards: dict[str, int] = Field(sa_column=Column(JSON, nullable=False))
    is_bot: bool = Field(default=False)
    seed_commit: str | None = Field(default=None, max_length=66)
    seed_secret: str | None = Field(default=None, max_length=66)
    #: the SeatAuthorization: the session key the wallet delegated, its expiry (unix seconds)
    #: and the wallet's signature (65 bytes, or an EIP-1271 contract wallet's bytes)
    session_key: str | None = Field(default=None, max_length=42)
    authorization_expiry: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True)
    )
    authorization: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: the session key's MatchEnd signature over the whole transcript, once the match is over
    end_acknowledgement: str | None = Field(default=None, max_length=132)
    #: False once the match has ended (finished or cancelled; it never becomes live again): an
    #: owner's seats in live matches are found by (address, live), not among all its past seats
    live: bool = Field(default=True)


class MatchAction(SQLModel, table=True):
    """The action applied at `index` (0-based); the primary key makes each index happen once."""

    __tablename__ = "match_actions"

    match_id: str = Field(foreign_key="matches.id", primary_key=True, max_length=66)
    index: int = Field(primary_key=True)
    seat: int
    action: list[Any] = Field(sa_column=Column(JSON, nullable=False))
    label: str = Field(default="", sa_column=Column(Text, nullable=False))
    by_bot: bool = Field(default=False)
    #: the MatchAction's `action`: the canonical JSON of the move as its seat sent it (the
    #: bot's real action)
    move: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    salt: str | None = Field(default=None, max_length=66)
    #: the session key's signature of the MatchAction (None for the operator's entries)
    signature: str | None = Field(default=None, max_length=132)
    entry_hash: str | None = Field(default=None, max_length=66)
    #: the operator's MatchReceipt signature of the entry
    receipt: str | None = Field(default=None, max_length=132)
    #: the entry as each reader may read it: [player 0's, player 1's, a spectator's]
    views: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


@dataclass(slots=True, frozen=True)
class TranscriptRow:
    """The columns of an action row (MatchAction) that a result's transcript reads, read
    without the ORM."""

    index: int
    seat: int
    by_bot: bool
    action: list[Any]
    move: str
    salt: str | None
    signature: str | None
    entry_hash: str | None
    receipt: str | None
