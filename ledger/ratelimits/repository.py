"""The queries of rate limits: fixed windows of request counts, shared by every API process."""

from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from ledger.db.models import (
    RateLimitWindow,
)


def count_request(db: Session, key: str, window_start: int) -> int:
    """Add one request to `key`'s window starting at `window_start`; the window's count so far."""
    dialect = db.get_bind().dialect.name
    insert_of = postgresql.insert if dialect == "postgresql" else sqlite.insert
    table = RateLimitWindow.__table__  # type: ignore[attr-defined]
    statement = (
        insert_of(table)
        .values(key=key, window_start=window_start, hits=1)
        .on_conflict_do_update(
            index_elements=["key", "window_start"], set_={"hits": table.c.hits + 1}
        )
        .returning(table.c.hits)
    )
    return int(db.execute(statement).scalar_one())


def purge_rate_windows(db: Session, *, before: int) -> None:
    """Delete every rate-limit window that started before `before`."""
    db.execute(delete(RateLimitWindow).where(col(RateLimitWindow.window_start) < before))
