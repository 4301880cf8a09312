"""The queries of matches: matches, seats, applied actions, turn deadlines. Helpers never commit; the unit of work does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.orm import defer
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from ledger.db.models import (
    Match,
    MatchAction,
    MatchSeat,
    TranscriptRow,
)
from ledger.db.models.matches import LIVE_STATUSES, MatchStatus
from ledger.db.prepared import Prepared, attach, insert_attached
from ledger.db.unit import DB, orm


def add(db: DB, *rows: Any) -> None:
    """Insert new rows now, in order (prepared INSERTs; the rows then persistent in the unit's
    Session, as after a flush)."""
    insert_attached(db, *rows)


# the state snapshot is loaded only when a state must be rebuilt (cache miss)
_GET_MATCH = (
    select(Match).where(col(Match.id) == bindparam("match_id")).options(defer(Match.state))  # type: ignore[arg-type]
)


_SEATS = (
    select(MatchSeat)
    .where(col(MatchSeat.match_id) == bindparam("match_id"))
    .order_by(col(MatchSeat.seat))
)


#: built once: a statement's cache key is worked out once per statement object, and
#: `execution_options` makes a new one
_GET_MATCH_FRESH = _GET_MATCH.execution_options(populate_existing=True)


_MATCHES = Match.__table__  # type: ignore[attr-defined]
_SEAT_TABLE = MatchSeat.__table__  # type: ignore[attr-defined]
_MATCH_COLUMNS = [c for c in _MATCHES.c if c.key != "state"]  # the snapshot: on first access
_MATCH_KEYS = [c.key for c in _MATCH_COLUMNS]
_SEAT_KEYS = [c.key for c in _SEAT_TABLE.c]
_MATCH_ROW = Prepared(core_select(*_MATCH_COLUMNS).where(_MATCHES.c.id == bindparam("match_id")))
_SEAT_ROWS = Prepared(
    core_select(*_SEAT_TABLE.c)
    .where(_SEAT_TABLE.c.match_id == bindparam("match_id"))
    .order_by(_SEAT_TABLE.c.seat)
)


def get_match(db: DB, match_id: str) -> Match | None:
    """A match by id (fresh from the database): one prepared statement, the row attached to the
    unit's Session as the ORM would load it (the ORM's query path costs 4x more), or through
    the ORM when the Session holds the match already."""
    session = orm(db)
    if identity_key(Match, match_id) in session.identity_map:
        return session.exec(_GET_MATCH_FRESH, params={"match_id": match_id}).first()
    row = _MATCH_ROW.first(db, {"match_id": match_id})
    return None if row is None else attach(session, Match, dict(zip(_MATCH_KEYS, row, strict=True)))


def seats(db: DB, match_id: str) -> list[MatchSeat]:
    """The seats of a match, by seat number (read as `get_match` reads the match)."""
    session = orm(db)
    rows = _SEAT_ROWS.all(db, {"match_id": match_id})
    out = []
    for row in rows:
        seat = attach(session, MatchSeat, dict(zip(_SEAT_KEYS, row, strict=True)))
        if seat is None:
            return list(session.exec(_SEATS, params={"match_id": match_id}).all())
        out.append(seat)
    return out


@lru_cache(maxsize=8)
def _seat_update(unset: str, columns: tuple[str, ...]) -> Prepared:
    """UPDATE of a seat's `columns` while its column `unset` is still NULL."""
    return Prepared(
        update(_SEAT_TABLE)
        .where(
            _SEAT_TABLE.c.match_id == bindparam("match_id"),
            _SEAT_TABLE.c.seat == bindparam("was_seat"),
            _SEAT_TABLE.c[unset].is_(None),
        )
        .values({name: bindparam(f"set_{name}") for name in columns})
    )


def set_seat_once(db: DB, seat: MatchSeat, unset: str, values: dict[str, Any]) -> bool:
    """Write `values` into `seat`'s row only if its column `unset` is still NULL (one prepared
    statement, no flush); the instance then holds them as loaded. False if it was set first."""
    params = {f"set_{name}": value for name, value in values.items()}
    params |= {"match_id": seat.match_id, "was_seat": seat.seat}
    if _seat_update(unset, tuple(sorted(values))).execute(db, params) != 1:
        return False
    for name, value in values.items():
        set_committed_value(seat, name, value)
    return True


def detached_seats(db: DB, match_id: str) -> list[MatchSeat]:
    """The seats of a match, by seat number, as instances bound to no Session (read only: what
    a process may keep between requests); no ORM Session is made for them."""
    rows = _SEAT_ROWS.all(db, {"match_id": match_id})
    return [MatchSeat.model_validate(dict(zip(_SEAT_KEYS, row, strict=True))) for row in rows]


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


@lru_cache(maxsize=64)
def _guarded_update(guards: tuple[str, ...], columns: tuple[str, ...]) -> Prepared:
    """UPDATE of a match's `columns` where its `guards` columns still hold the values given
    (bound as `was_<name>`): one prepared statement per pair of column sets."""
    return Prepared(
        update(_MATCHES)
        .where(
            _MATCHES.c.id == bindparam("match_id"),
            *(_MATCHES.c[name] == bindparam(f"was_{name}") for name in guards),
        )
        .values({name: bindparam(f"set_{name}") for name in columns})
    )


def _update_if(db: DB, match_id: str, guards: dict[str, Any], values: dict[str, Any]) -> bool:
    """Write `values` only if the match's `guards` columns still hold their values."""
    statement = _guarded_update(tuple(guards), tuple(sorted(values)))
    params = {f"set_{name}": value for name, value in values.items()}
    params |= {f"was_{name}": value for name, value in guards.items()}
    return statement.execute(db, params | {"match_id": match_id}) == 1


def update_match_if_version(db: DB, match_id: str, version: int, values: dict[str, Any]) -> bool:
    """Write `values` only if the match is still active at `version`; False if someone else
    moved first or the match ended meanwhile (a resignation, a timeout)."""
    guards = {"version": version, "status": MatchStatus.ACTIVE.value}
    return _update_if(db, match_id, guards, values)


_SEATS_ENDED = Prepared(
    update(_SEAT_TABLE)
    .where(_SEAT_TABLE.c.match_id == bindparam("match_id"))
    .values(live=bindparam("live"))
)
_LIVE_VALUES = frozenset(status.value for status in LIVE_STATUSES)


def update_match_if_status(db: Session, match_id: str, status: str, values: dict[str, Any]) -> bool:
    """Write `values` only if the match still has `status` (after the unit's pending writes, as
    Session.execute would); a match it ends (a status that is not live) has its seats marked
    no longer live in the same transaction."""
    db.flush()
    if not _update_if(db, match_id, {"status": status}, values):
        return False
    if "status" in values and values["status"] not in _LIVE_VALUES:
        _SEATS_ENDED.execute(db, {"match_id": match_id, "live": False})
    return True


_ACTIONS = MatchAction.__table__  # type: ignore[attr-defined]
_INSERT_ACTION = Prepared(insert(_ACTIONS))  # every column, bound by its name


def insert_actions(db: DB, rows: list[dict[str, Any]]) -> None:
    """Insert action rows, each with every column (the primary key refuses an index applied
    twice: IntegrityError)."""
    if rows:
        _INSERT_ACTION.execute_many(db, rows)


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


_TRANSCRIPT_ROWS = Prepared(
    core_select(*(_ACTIONS.c[f.name] for f in fields(TranscriptRow)))
    .where(_ACTIONS.c.match_id == bindparam("match_id"))
    .order_by(_ACTIONS.c.index)
)


def transcript_rows(db: DB, match_id: str) -> list[TranscriptRow]:
    """Every action row of a match in order, as its result's transcript reads them (no ORM)."""
    return [TranscriptRow(*row) for row in _TRANSCRIPT_ROWS.all(db, {"match_id": match_id})]


_ACTION_ROWS = Prepared(
    core_select(_ACTIONS.c.action)
    .where(_ACTIONS.c.match_id == bindparam("match_id"), _ACTIONS.c.index >= bindparam("since"))
    .order_by(_ACTIONS.c.index)
    .limit(bindparam("limit"))
)


def action_rows(db: DB, match_id: str, *, since: int, limit: int) -> list[list[Any]]:
    """The action JSON values of a match in order, `limit` of them from index `since`."""
    values = {"match_id": match_id, "since": since, "limit": limit}
    return [list(row[0]) for row in _ACTION_ROWS.all(db, values)]


@dataclass(slots=True)
class LiveMatch:
    """What the move path reads of a match: every column but the state snapshot, read without
    the ORM (the attributes are the Match model's)."""

    id: str
    game: str
    status: str
    bot_seat: int | None
    bot_name: str | None
    seed: str | None
    version: int
    state_version: int
    checkpoints: list[str]
    current_player: int | None
    head_hash: str | None
    forfeit_entry: dict[str, Any] | None
    turn_deadline: datetime | None
    winner_seat: int | None
    end_reason: str | None


#: a match as the ORM loads it, or as the move path reads it
AnyMatch = Match | LiveMatch

_LIVE_COLUMNS = [_MATCHES.c[name] for name in LiveMatch.__slots__]
_LIVE_MATCH = Prepared(core_select(*_LIVE_COLUMNS).where(_MATCHES.c.id == bindparam("match_id")))
_SNAPSHOT = Prepared(
    core_select(_MATCHES.c.state, _MATCHES.c.state_version).where(
        _MATCHES.c.id == bindparam("match_id")
    )
)


def live_match(db: DB, match_id: str) -> LiveMatch | None:
    """A match's columns but its state snapshot (one prepared statement, no ORM)."""
    row = _LIVE_MATCH.first(db, {"match_id": match_id})
    return None if row is None else LiveMatch(*row)


def snapshot(db: DB, match_id: str) -> tuple[dict[str, Any] | None, int]:
    """A match's state snapshot and the version it is a snapshot of."""
    row = _SNAPSHOT.first(db, {"match_id": match_id})
    return (None, 0) if row is None else (row[0], int(row[1]))


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
