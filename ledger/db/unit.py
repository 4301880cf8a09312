"""The one unit of work: a request or a task runs in one transaction that commits when the work
succeeds and rolls back when it raises; helpers never commit.

Two handles on that one concept: an ORM `Session` (`unit_of_work`), and for the play loop's hot
path a `Transaction` (`lean_unit`): the same transaction on a pooled DB-API connection without
building a Session (its autobegin, connection bookkeeping and commit machinery cost more than a
move's statements). A `Transaction` hands out an ORM Session joined to the same transaction only
when the work needs one (`orm`: a match that ends, a turn timeout, a cache miss). Both begin the
same way (`ledger.db.engine.begin_transaction`: SQLite's write lock for a writer) and share the
error mapping and the commit rules below.

Errors are mapped once, here: a unique or foreign-key clash with a concurrent transaction is
`Conflict` (409, retry), a database that does not answer is `ServiceUnavailable` (503, retry).
A refusal that reports a change which must persist (a match cancelled or lost on time just
before the request is refused) is asked for explicitly: the service calls `keep_on_refusal`, and
the unit then commits before the refusal propagates.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from sqlalchemy import Dialect, Engine, event
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.pool import PoolProxiedConnection
from sqlmodel import Session

from ledger.db.engine import begin_transaction, release_write_lock
from ledger.errors import Conflict, MetaLedgerError, ServiceUnavailable

T = TypeVar("T")

_KEEP = "metaledger_keep_on_refusal"
_AFTER_COMMIT = "metaledger_after_commit"


def _settle(
    exc: BaseException,
    commit: Callable[[], None],
    rollback: Callable[[], None],
    keep: Callable[[], bool],
) -> NoReturn:
    """End a unit whose body (or commit) raised `exc`: roll back, or commit a refusal after
    `keep_on_refusal`; then raise (database errors mapped to Conflict / ServiceUnavailable,
    anything else as it is)."""
    if isinstance(exc, IntegrityError):
        rollback()
        raise Conflict("the request conflicts with a concurrent change; retry") from exc
    if isinstance(exc, OperationalError):
        rollback()
        raise ServiceUnavailable("the database is unavailable; retry") from exc
    if isinstance(exc, MetaLedgerError) and keep():
        commit()
    else:
        rollback()
    raise exc


@contextmanager
def _outcome(
    commit: Callable[[], None], rollback: Callable[[], None], keep: Callable[[], bool]
) -> Iterator[None]:
    """Commit when the body succeeds, roll back when it raises (a refusal after
    `keep_on_refusal` commits first); database errors mapped to Conflict / ServiceUnavailable."""
    try:
        yield
        commit()
    except BaseException as exc:
        _settle(exc, commit, rollback, keep)


@contextmanager
def unit_of_work(engine: Engine, *, write: bool = True) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on error (`write`: takes
    SQLite's write lock at BEGIN, so read-then-write transactions serialise; read-only work
    passes write=False)."""
    session = Session(_writer(engine) if write else engine, expire_on_commit=False)
    try:
        with _outcome(session.commit, session.rollback, lambda: _kept(session.info)):
            yield session
    finally:
        session.close()


class KeptConnection:
    """The one SQLite connection lean units on one thread keep checked out between them (the
    API's event loop runs every hot request's unit on its thread): taking it and putting it back
    costs an attribute, where the pool's check-out and check-in (events, reset, the write lock's
    release) cost more than a move's statements. `keep_connection` makes one."""

    __slots__ = ("engine", "fairy", "thread")

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.thread = threading.get_ident()
        self.fairy: PoolProxiedConnection | None = None

    def take(self) -> PoolProxiedConnection | None:
        """The kept connection, if this is its thread and it is free (it is then in use)."""
        fairy = self.fairy
        if fairy is None or threading.get_ident() != self.thread:
            return None
        self.fairy = None
        return fairy if fairy.is_valid else None

    def put_back(self, fairy: PoolProxiedConnection) -> bool:
        """Keep `fairy` (its transaction ended, its write lock given back); False when it is not
        to be kept (another thread's, invalid, still in a transaction, or one is kept already)."""
        if (
            self.fairy is not None
            or threading.get_ident() != self.thread
            or not fairy.is_valid
            or fairy.driver_connection is None
            or fairy.driver_connection.in_transaction
        ):
            return False
        release_write_lock(self.engine, fairy)
        self.fairy = fairy
        return True

    def release(self) -> None:
        """Stop keeping a connection, and return the one kept to the pool (shutdown, tests)."""
        if _KEPT.get(self.engine) is self:
            del _KEPT[self.engine]
        fairy, self.fairy = self.fairy, None
        if fairy is not None:
            fairy.close()


_KEPT: weakref.WeakKeyDictionary[Engine, KeptConnection] = weakref.WeakKeyDictionary()


def keep_connection(engine: Engine) -> KeptConnection | None:
    """Let the lean units this thread runs on a SQLite `engine` keep one connection checked out
    between them (None for other databases, whose pool checks a connection's health at each
    check-out); `release()` it before the engine is disposed."""
    if engine.dialect.name != "sqlite":
        return None
    kept = _KEPT[engine] = KeptConnection(engine)
    return kept


class Transaction:
    """One transaction on a pooled DB-API connection (the lean unit of work's handle): prepared
    statements (`ledger.db.prepared`) run on `driver`; `orm` joins an ORM Session to it."""

    __slots__ = (
        "_connection",
        "_kept",
        "_session",
        "dialect",
        "driver",
        "engine",
        "fairy",
        "info",
    )

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect: Dialect = engine.dialect
        self.info: dict[str, Any] = {}
        self.fairy: PoolProxiedConnection | None = None
        self.driver: Any = None
        self._connection: Connection | None = None
        self._session: Session | None = None
        self._kept = _KEPT.get(engine)

    def begin(self, *, write: bool) -> None:
        """Take the thread's kept connection or check one out of the pool, and begin (SQLite's
        write lock for a writer)."""
        kept = None if self._kept is None else self._kept.take()
        self.fairy = kept or self._driver_call(self.engine.raw_connection)
        self.driver = self.fairy.driver_connection
        begin_transaction(self.engine, self.fairy, write=write)

    @property
    def orm(self) -> Session:
        """An ORM Session in this same transaction (made on first use; the unit commits it)."""
        if self._session is None:
            assert self.fairy is not None
            self._connection = Connection(self.engine, connection=self.fairy)
            self._session = Session(self._connection, expire_on_commit=False)
        return self._session

    def commit(self) -> None:
        """Commit (through the joined Session if there is one), then run the after-commit hooks.
        The driver's commit follows the Session's: a Session that only had rows attached to it
        (`ledger.db.prepared.attach`) never used the connection and commits nothing itself;
        after a Session that did, the driver has nothing left to commit."""
        if self._session is not None:
            self._session.commit()
        if self.fairy is not None:
            self._driver_call(self.fairy.commit)
        _run_after_commit(self)

    def rollback(self) -> None:
        """Roll back and drop the after-commit hooks."""
        self.info.pop(_AFTER_COMMIT, None)
        if self._session is not None:
            self._session.rollback()
        if self.fairy is not None:
            self._driver_call(self.fairy.rollback)

    def kept(self) -> bool:
        """Whether the work asked for its changes to stand even if it refuses the request."""
        joined = self._session is not None and _kept(self._session.info)
        return _kept(self.info) or joined

    def close(self) -> None:
        """Give the connection back to the thread's kept place, or to the pool (either releases
        SQLite's write lock)."""
        if self._session is not None:
            self._session.close()
        if self._connection is not None:
            self._connection.close()  # returns the pooled connection it wraps
        elif self.fairy is not None and not (self._kept and self._kept.put_back(self.fairy)):
            self.fairy.close()
        self.fairy = self.driver = self._connection = self._session = None

    def _driver_call(self, call: Callable[[], T]) -> T:
        """`call()` with a driver error raised as SQLAlchemy's (the unit of work maps it)."""
        error: type[Exception] = self.dialect.loaded_dbapi.Error
        try:
            return call()
        except error as exc:
            raise DBAPIError.instance(None, None, exc, error, dialect=self.dialect) from exc


#: what a helper of the unit of work is given: its ORM Session or its lean Transaction
DB = Session | Transaction


def orm(db: DB) -> Session:
    """The ORM Session of a unit of work (for a Transaction, one joined to it)."""
    return db if isinstance(db, Session) else db.orm


@contextmanager
def lean_unit(engine: Engine, *, write: bool = True) -> Iterator[Transaction]:
    """A Transaction that commits on success and rolls back on error, like `unit_of_work`, on a
    pooled DB-API connection (no ORM Session unless the work asks for one)."""
    tx = Transaction(engine)
    try:
        with _outcome(tx.commit, tx.rollback, tx.kept):
            tx.begin(write=write)
            yield tx
    finally:
        tx.close()


_WRITERS: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def _writer(engine: Engine) -> Engine:
    """`engine` with the option that makes a transaction take the write lock at BEGIN (made once
    per engine: building an option engine costs more than a short transaction's statements)."""
    writer = _WRITERS.get(engine)
    if writer is None:
        writer = _WRITERS[engine] = engine.execution_options(metaledger_write=True)
    return writer


def run_unit(engine: Engine, work: Callable[[Session], T], *, write: bool = True) -> T:
    """`work(session)` in one unit of work; its result."""
    with unit_of_work(engine, write=write) as session:
        return work(session)


def run_lean(engine: Engine, work: Callable[[Transaction], T], *, write: bool = True) -> T:
    """`work(transaction)` in one lean unit of work; its result (`lean_unit`'s steps, without
    its two generator frames: this runs once per move)."""
    tx = Transaction(engine)
    try:
        try:
            tx.begin(write=write)
            result = work(tx)
            tx.commit()
        except BaseException as exc:
            _settle(exc, tx.commit, tx.rollback, tx.kept)
        return result
    finally:
        tx.close()


def _kept(info: dict[str, Any]) -> bool:
    return bool(info.pop(_KEEP, False))


def keep_on_refusal(db: DB) -> None:
    """Commit what this unit has done so far even if the work then refuses the request (raises a
    MetaLedgerError); any other exception still rolls everything back."""
    db.info[_KEEP] = True


def after_commit(db: DB, fn: Callable[[], None]) -> None:
    """Run `fn` once the unit's current transaction has committed (dropped on rollback)."""
    db.info.setdefault(_AFTER_COMMIT, []).append(fn)


def _run_after_commit(db: Any) -> None:
    hooks = db.info.pop(_AFTER_COMMIT, None)
    if hooks:
        for fn in hooks:
            fn()


def _drop_after_commit(session: Any, *_: Any) -> None:
    session.info.pop(_AFTER_COMMIT, None)


event.listen(Session, "after_commit", _run_after_commit)
event.listen(Session, "after_soft_rollback", _drop_after_commit)
