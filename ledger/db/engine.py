"""Database engines for any SQLAlchemy URL (SQLite by default, PostgreSQL via psycopg 3): one
per URL and process, with the project's SQLite pragmas and write-lock-at-BEGIN."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from pathlib import Path
from typing import Any

from pydantic_core import to_json
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool, Pool, PoolProxiedConnection
from sqlmodel import SQLModel

from ledger.db.writelock import SqliteWriteLock

_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()


def normalise_url(url: str) -> str:
    """Map plain `postgresql://` / `postgres://` URLs onto the psycopg 3 driver."""
    parsed = make_url(
        url.replace("postgres://", "postgresql://", 1) if url.startswith("postgres://") else url
    )
    if parsed.drivername in ("postgresql", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


_BEGIN_IMMEDIATE = "BEGIN IMMEDIATE"
_BEGIN_DEFERRED = "BEGIN DEFERRED"
#: the write lock of each SQLite engine, by its pool (option engines share their engine's pool)
_WRITE_LOCKS: weakref.WeakKeyDictionary[Pool, SqliteWriteLock] = weakref.WeakKeyDictionary()


def begin_transaction(engine: Engine, fairy: PoolProxiedConnection, *, write: bool) -> None:
    """Begin a transaction on a pooled connection of `engine`. SQLite: a writing transaction
    queues on the file's write lock first (no busy-handler sleeps), then takes SQLite's write
    lock at BEGIN (IMMEDIATE), so read-then-write transactions serialise instead of failing on
    lock upgrade; readers stay DEFERRED; a connection already in a transaction (a lean unit of
    work's, which an ORM Session then joins) is left as it is. Other databases begin on their
    first statement."""
    lock = _WRITE_LOCKS.get(engine.pool)
    if lock is None:
        return
    driver: Any = fairy.driver_connection
    if driver.in_transaction:
        return
    if write:
        lock.acquire(fairy.info)
    # straight to the driver: SQLAlchemy's statement path costs more than SQLite's BEGIN
    statement = _BEGIN_IMMEDIATE if write else _BEGIN_DEFERRED
    try:
        driver.execute(statement)
    except sqlite3.Error as exc:  # as SQLAlchemy would raise it (the unit of work maps it)
        raise DBAPIError.instance(statement, None, exc, sqlite3.Error) from exc


def release_write_lock(engine: Engine, fairy: PoolProxiedConnection) -> None:
    """Give back SQLite's file write lock a connection holds (the pool does it at check-in;
    a connection kept checked out between transactions needs it done here)."""
    lock = _WRITE_LOCKS.get(engine.pool)
    if lock is not None:
        lock.release(fairy.info)


def _sqlite_begin(engine: Engine) -> Any:
    def begin(conn: Any) -> None:
        write = bool(conn.get_execution_options().get("metaledger_write"))
        begin_transaction(engine, conn.connection, write=write)

    return begin


def json_text(value: Any) -> str:
    """A JSON column's stored text: compact, UTF-8, by pydantic-core's encoder (json.dumps
    spent five times longer on a move's rows); any JSON reader reads it as it read json.dumps'
    text, so rows written before and after read back the same."""
    return to_json(value).decode()


def make_engine(url: str, **kwargs: Any) -> Engine:
    """A new engine for `url` with the project's pragmas / driver settings."""
    url = normalise_url(url)
    parsed = make_url(url)
    kwargs.setdefault("json_serializer", json_text)
    if parsed.get_backend_name() == "sqlite":
        connect_args = {"check_same_thread": False, "timeout": 10, "isolation_level": None}
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        database = parsed.database
        lock = SqliteWriteLock(
            Path(database)
            if database and database != ":memory:" and "mode=memory" not in url
            else None
        )
        _WRITE_LOCKS[engine.pool] = lock
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin(engine))
        event.listen(engine, "checkin", lambda _dbapi, record: lock.release(record.info))
        event.listen(engine, "invalidate", lambda _dbapi, record, _exc: lock.release(record.info))
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    if kwargs.get("poolclass") is not NullPool:
        kwargs.setdefault("pool_size", 10)
        kwargs.setdefault("max_overflow", 20)
    return create_engine(url, **kwargs)


def get_engine(url: str | None = None) -> Engine:
    """The process-wide engine for `url` (default: the settings' database URL)."""
    if url is None:
        from ledger.settings import get_settings

        url = get_settings().resolved_database_url
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            engine = _ENGINES[url] = make_engine(url)
        return engine


def dispose_engine(url: str) -> None:
    """Dispose of and forget the cached engine for `url` (tests, shutdown)."""
    with _LOCK:
        engine = _ENGINES.pop(url, None)
    if engine is not None:
        engine.dispose()


def create_all(engine: Engine) -> None:
    """Create every table of ledger.db.models (tests and first start; production uses migrations)."""
    import ledger.db.models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)
