"""Database engines and sessions for any SQLAlchemy URL (SQLite by default, PostgreSQL via psycopg 3)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool
from sqlmodel import Session, SQLModel

from ledger.errors import ServiceUnavailable

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


def _sqlite_begin(conn: Any) -> None:
    # Writing transactions take SQLite's write lock at BEGIN (IMMEDIATE), so read-then-write
    # transactions serialise instead of failing on lock upgrade; readers stay DEFERRED.
    mode = "IMMEDIATE" if conn.get_execution_options().get("metaledger_write") else "DEFERRED"
    conn.exec_driver_sql(f"BEGIN {mode}")


def make_engine(url: str, **kwargs: Any) -> Engine:
    """A new engine for `url` with the project's pragmas / driver settings."""
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect_args = {"check_same_thread": False, "timeout": 10, "isolation_level": None}
        engine = create_engine(url, connect_args=connect_args, **kwargs)
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
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
    """Create every table of ledger.models (tests and first start; production uses migrations)."""
    import ledger.models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)


@contextmanager
def session_scope(engine: Engine, *, write: bool = True) -> Iterator[Session]:
    """A session that commits on success and rolls back on error (`write`: takes SQLite's
    write lock at BEGIN; read-only work should pass write=False)."""
    bind = engine.execution_options(metaledger_write=True) if write else engine
    session = Session(bind, expire_on_commit=False)
    try:
        yield session
        session.commit()
    except OperationalError as exc:
        session.rollback()
        raise ServiceUnavailable(f"database error: {exc.orig}") from exc
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def ping(engine: Engine) -> bool:
    """Whether the database answers a trivial query."""
    from sqlalchemy import text

    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        return False


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Run `fn` once `session`'s current transaction has committed (dropped on rollback)."""
    session.info.setdefault("metaledger_after_commit", []).append(fn)


def _run_after_commit(session: Any) -> None:
    hooks = session.info.pop("metaledger_after_commit", None)
    if hooks:
        for fn in hooks:
            fn()


def _drop_after_commit(session: Any, *_: Any) -> None:
    session.info.pop("metaledger_after_commit", None)


event.listen(Session, "after_commit", _run_after_commit)
event.listen(Session, "after_soft_rollback", _drop_after_commit)


def upgrade_database(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at `url` (default: settings) up to `revision` with Alembic."""
    from ledger.migrations import upgrade

    upgrade(url, revision)
