"""The queries of signed results and their outbox rows (the anchoring worker's queue)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from ledger.db.models import (
    Match,
    MatchResult,
    OutboxEntry,
)
from ledger.db.prepared import insert_attached


def add_result_with_outbox(db: Session, result: MatchResult) -> OutboxEntry:
    """Insert a signed result and its outbox row (same transaction, the caller's)."""
    insert_attached(db, result)  # prepared INSERTs, no ORM flush (ledger.db.prepared)
    assert result.id is not None
    entry = OutboxEntry(result_id=result.id, created_at=result.created_at)
    insert_attached(db, entry)
    return entry


def result_of(db: Session, match_id: str) -> MatchResult | None:
    """The signed result of a match, if it ended."""
    return db.exec(select(MatchResult).where(col(MatchResult.match_id) == match_id)).first()


def outbox_entry(db: Session, result_id: int) -> OutboxEntry | None:
    """The outbox row of a result."""
    return db.exec(select(OutboxEntry).where(col(OutboxEntry.result_id) == result_id)).first()


def match_exists(db: Session, match_id: str) -> bool:
    """Whether a match with this id exists."""
    return db.get(Match, match_id) is not None
