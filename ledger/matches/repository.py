"""The queries of matches: matches, seats, applied actions, turn deadlines. Helpers never commit; the unit of work does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from ledger.db.models import (
    Match,
    MatchAction,
    MatchSeat,
)
from ledger.db.models.matches import LIVE_STATUSES


def add(db: Session, *rows: Any) -> None:
    """Stage rows for insertion and flush."""
    db.add_all(rows)
    db.flush()


# the state snapshot is loaded only when a state must be rebuilt (cache miss)
_GET_MATCH = (
    select(Match).where(col(Match.id) == bindparam("match_id")).options(defer(Match.state))  # type: ignore[arg-type]
)


_SEATS = (
    select(MatchSeat)
    .where(col(MatchSeat.match_id) == bindparam("match_id"))
    .order_by(col(MatchSeat.seat))
)


def get_match(db: Session, match_id: str) -> Match | None:
    """A match by id (fresh from the database)."""
    return db.exec(
        _GET_MATCH.execution_options(populate_existing=True), params={"match_id": match_id}
    ).first()


def seats(db: Session, match_id: str) -> list[MatchSeat]:
    """The seats of a match, by seat number."""
    return list(db.exec(_SEATS, params={"match_id": match_id}).all())


def open_matches(db: Session, game: str | None, limit: int = 50) -> Sequence[Match]:
    """Matches waiting for an opponent, newest first."""
    query = select(Match).where(col(Match.status) == "open")
    if game is not None:
        query = query.where(col(Match.game) == game)
    return db.exec(query.order_by(col(Match.created_at).desc()).limit(limit)).all()


def matches_of(db: Session, address: str, limit: int = 50) -> Sequence[Match]:
    """Matches `address` sits in, newest first."""
    query = (
        select(Match)
        .join(MatchSeat, col(Match.id) == col(MatchSeat.match_id))
        .where(col(MatchSeat.address) == address, col(MatchSeat.is_bot).is_(False))
        .order_by(col(Match.created_at).desc())
        .limit(limit)
    )
    return db.exec(query).all()


_MATCHES = Match.__table__  # type: ignore[attr-defined]


def update_match_if_version(
    db: Session, match_id: str, version: int, values: dict[str, Any]
) -> bool:
    """Write `values` only if the match is still at `version`; False if someone else moved first."""
    result = db.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id, _MATCHES.c.version == version)
        .values(**values)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def update_match_if_status(db: Session, match_id: str, status: str, values: dict[str, Any]) -> bool:
    """Write `values` only if the match still has `status`."""
    result = db.execute(
        update(_MATCHES)
        .where(_MATCHES.c.id == match_id, _MATCHES.c.status == status)
        .values(**values)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def insert_actions(db: Session, rows: list[dict[str, Any]]) -> None:
    """Insert action rows (one statement; the primary key refuses an index applied twice)."""
    if rows:
        db.execute(insert(MatchAction.__table__), rows)  # type: ignore[attr-defined]


def match_actions(
    db: Session, match_id: str, *, since: int = 0, limit: int | None = None
) -> Sequence[MatchAction]:
    """The actions of a match in order, from index `since` (clamped to the 64-bit range the
    database compares)."""
    since = max(0, min(since, 2**63 - 1))
    query = (
        select(MatchAction)
        .where(col(MatchAction.match_id) == match_id, col(MatchAction.index) >= since)
        .order_by(col(MatchAction.index))
    )
    if limit is not None:
        query = query.limit(limit)
    return db.exec(query).all()


def action_rows(db: Session, match_id: str) -> list[list[Any]]:
    """Just the action JSON values of a match, in order."""
    query = (
        select(MatchAction.action)
        .where(col(MatchAction.match_id) == match_id)
        .order_by(col(MatchAction.index))
    )
    return [list(a) for a in db.exec(query).all()]


def expired_matches(db: Session, now: datetime, limit: int = 100) -> Sequence[str]:
    """Ids of live matches whose turn deadline has passed."""
    query = (
        select(Match.id)
        .where(
            col(Match.status).in_([s.value for s in LIVE_STATUSES]), col(Match.turn_deadline) < now
        )
        .limit(limit)
    )
    return db.exec(query).all()
