"""The one unit of work: a request or a task runs in one transaction that commits when the work
succeeds and rolls back when it raises; helpers never commit.

Errors are mapped once, here: a unique or foreign-key clash with a concurrent transaction is
`Conflict` (409, retry), a database that does not answer is `ServiceUnavailable` (503, retry).
A refusal that reports a change which must persist (a match cancelled or lost on time just
before the request is refused) is asked for explicitly: the service calls `keep_on_refusal`, and
the unit then commits before the refusal propagates.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Engine, event
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session

from ledger.errors import Conflict, MetaLedgerError, ServiceUnavailable

T = TypeVar("T")

_KEEP = "metaledger_keep_on_refusal"
_AFTER_COMMIT = "metaledger_after_commit"


@contextmanager
def unit_of_work(engine: Engine, *, write: bool = True) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on error (`write`: takes
    SQLite's write lock at BEGIN, so read-then-write transactions serialise; read-only work
    passes write=False)."""
    session = Session(_writer(engine) if write else engine, expire_on_commit=False)
    try:
        yield session
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        raise Conflict("the request conflicts with a concurrent change; retry") from exc
    except OperationalError as exc:
        session.rollback()
        raise ServiceUnavailable("the database is unavailable; retry") from exc
    except MetaLedgerError:
        if session.info.pop(_KEEP, False):
            session.commit()
        else:
            session.rollback()
        raise
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


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


def keep_on_refusal(session: Session) -> None:
    """Commit what this unit has done so far even if the work then refuses the request (raises a
    MetaLedgerError); any other exception still rolls everything back."""
    session.info[_KEEP] = True


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Run `fn` once `session`'s current transaction has committed (dropped on rollback)."""
    session.info.setdefault(_AFTER_COMMIT, []).append(fn)


def _run_after_commit(session: Any) -> None:
    hooks = session.info.pop(_AFTER_COMMIT, None)
    if hooks:
        for fn in hooks:
            fn()


def _drop_after_commit(session: Any, *_: Any) -> None:
    session.info.pop(_AFTER_COMMIT, None)


event.listen(Session, "after_commit", _run_after_commit)
event.listen(Session, "after_soft_rollback", _drop_after_commit)
