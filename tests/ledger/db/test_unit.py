"""The one unit of work, on SQLite and PostgreSQL, through both of its handles (the ORM Session
and the lean Transaction, whose joined Session the helpers use here): commit on success, roll
back on error, the error mapping (a concurrent clash is Conflict, an unreachable database
ServiceUnavailable), a refusal that keeps its change only when asked, and hooks that run only
after a commit; and the lean unit's own path (prepared statements on the pooled connection,
SQLite's write lock held until the connection is back in the pool)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, bindparam, insert, select

from ledger.db import (
    DB,
    after_commit,
    lean_unit,
    make_engine,
    orm,
    run_lean,
    run_unit,
    unit_of_work,
)
from ledger.db.migrations import require_latest, upgrade
from ledger.db.models import Wallet, utcnow
from ledger.db.prepared import Prepared
from ledger.db.unit import keep_on_refusal
from ledger.errors import ConfigurationError, Conflict, NotFound, ServiceUnavailable

Unit = Callable[..., AbstractContextManager[Any]]
Run = Callable[..., Any]


@pytest.fixture(params=["session", "lean"])
def handle(request: pytest.FixtureRequest) -> tuple[Unit, Run]:
    """The unit of work through its ORM Session, or through its lean Transaction."""
    if request.param == "session":
        return unit_of_work, run_unit
    return lean_unit, run_lean


def _add(db: DB, address: str) -> None:
    now = utcnow()
    session = orm(db)
    session.add(Wallet(address=address, is_contract=False, created_at=now, last_seen_at=now))
    session.flush()


def _addresses(engine: Engine) -> list[str]:
    with unit_of_work(engine, write=False) as db:
        return sorted(db.scalars(select(Wallet.address)))  # type: ignore[arg-type]


def test_commits_on_success_and_rolls_back_on_error(
    engine: Engine, handle: tuple[Unit, Run]
) -> None:
    unit, run = handle
    run(engine, lambda db: _add(db, "0xA"))
    with pytest.raises(RuntimeError), unit(engine) as db:
        _add(db, "0xB")
        raise RuntimeError("boom")
    with pytest.raises(NotFound), unit(engine) as db:
        _add(db, "0xC")
        raise NotFound("a refusal rolls back too")
    assert _addresses(engine) == ["0xA"]


def test_a_clash_is_a_conflict(engine: Engine, handle: tuple[Unit, Run]) -> None:
    _, run = handle
    run(engine, lambda db: _add(db, "0xA"))
    with pytest.raises(Conflict, match="conflicts with a concurrent change"):
        run(engine, lambda db: _add(db, "0xA"))


def test_a_refusal_keeps_its_change_only_when_asked(
    engine: Engine, handle: tuple[Unit, Run]
) -> None:
    _, run = handle

    def refuse(db: DB, address: str, error: Exception) -> None:
        _add(db, address)
        keep_on_refusal(db)
        raise error

    with pytest.raises(Conflict):
        run(engine, lambda db: refuse(db, "0xKEPT", Conflict("the match is over")))
    with pytest.raises(KeyError):  # not a refusal: a bug, rolled back
        run(engine, lambda db: refuse(db, "0xLOST", KeyError("bug")))
    assert _addresses(engine) == ["0xKEPT"]


def test_after_commit_hooks_run_only_after_a_commit(
    engine: Engine, handle: tuple[Unit, Run]
) -> None:
    _, run = handle
    ran: list[str] = []

    def work(db: DB, name: str, fail: bool) -> None:
        _add(db, name)
        after_commit(db, lambda: ran.append(name))
        after_commit(orm(db), lambda: ran.append(f"{name} (session)"))
        assert not [r for r in ran if r.startswith(name)]  # not before the commit
        if fail:
            raise NotFound("no")

    run(engine, lambda db: work(db, "0xA", False))
    with pytest.raises(NotFound):
        run(engine, lambda db: work(db, "0xB", True))
    assert sorted(ran) == ["0xA", "0xA (session)"]


def test_an_unreachable_database_is_service_unavailable(
    tmp_path: Path, handle: tuple[Unit, Run]
) -> None:
    _, run = handle
    engine = make_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}")
    with pytest.raises(ServiceUnavailable, match="the database is unavailable"):
        run(engine, lambda db: _add(db, "0xA"))


_INSERT_WALLET = Prepared(
    insert(Wallet.__table__).values(  # type: ignore[attr-defined]
        address=bindparam("address"),
        is_contract=bindparam("contract"),
        created_at=bindparam("now"),
        last_seen_at=bindparam("now"),
        lock_version=bindparam("lock"),
    )
)


def _insert(db: DB, address: str) -> None:
    _INSERT_WALLET.execute(db, {"address": address, "now": utcnow(), "contract": False, "lock": 0})


def test_the_lean_unit_without_a_session(engine: Engine) -> None:
    """Prepared statements straight on the pooled connection: committed on success, rolled back
    on error, a clash a Conflict, and no ORM Session built unless asked for."""
    with lean_unit(engine) as tx:
        _insert(tx, "0xA")
        assert tx._session is None
    with pytest.raises(RuntimeError), lean_unit(engine) as tx:
        _insert(tx, "0xB")
        raise RuntimeError("boom")
    with pytest.raises(Conflict, match="conflicts with a concurrent change"):
        run_lean(engine, lambda tx: _insert(tx, "0xA"))
    with lean_unit(engine) as tx:  # a prepared write and an ORM write in one transaction
        _insert(tx, "0xC")
        _add(tx, "0xD")
    assert _addresses(engine) == ["0xA", "0xC", "0xD"]
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_a_lean_writer_holds_the_sqlite_write_lock_until_it_ends(tmp_path: Path) -> None:
    """While a lean unit writes, a second writer (of either kind) waits for it, then goes on."""
    from ledger.db import create_all

    engine = make_engine(f"sqlite:///{tmp_path / 'lock.db'}")
    create_all(engine)
    order: list[str] = []
    started = threading.Event()

    def second() -> None:
        started.set()
        run_unit(engine, lambda db: (_add(db, "0xSECOND"), order.append("second")))

    try:
        with lean_unit(engine) as tx:
            _insert(tx, "0xFIRST")
            waiter = threading.Thread(target=second)
            waiter.start()
            started.wait(5)
            waiter.join(0.3)
            assert waiter.is_alive()  # queued on the write lock
            order.append("first")
        waiter.join(10)
        assert order == ["first", "second"]
        assert _addresses(engine) == ["0xFIRST", "0xSECOND"]
    finally:
        engine.dispose()


def test_a_kept_connection_serves_the_lean_units_of_its_thread(tmp_path: Path) -> None:
    """With `keep_connection`, the lean units of the thread that asked reuse one SQLite
    connection (checked out once), give back the write lock between units (another thread's
    writer goes on meanwhile), roll back and keep it after an error; units on another thread
    and a unit that joins an ORM Session use the pool; `release` returns it to the pool."""
    from ledger.db import create_all, keep_connection

    engine = make_engine(f"sqlite:///{tmp_path / 'kept.db'}")
    create_all(engine)
    pool: Any = engine.pool
    kept = keep_connection(engine)
    assert kept is not None
    try:
        drivers = []
        for address in ("0xA", "0xB"):
            with lean_unit(engine) as tx:
                _insert(tx, address)
                drivers.append(tx.driver)
        assert drivers[0] is drivers[1] and pool.checkedout() == 1
        other = threading.Thread(target=run_lean, args=(engine, lambda tx: _insert(tx, "0xC")))
        other.start()
        other.join(5)  # not held up: the kept connection holds no write lock between units
        assert not other.is_alive() and pool.checkedout() == 1
        with pytest.raises(RuntimeError), lean_unit(engine) as tx:
            _insert(tx, "0xD")
            raise RuntimeError("boom")
        with lean_unit(engine) as tx:
            assert tx.driver is drivers[0]  # rolled back and kept
            _add(tx, "0xE")  # an ORM Session joined: the connection goes back to the pool
        assert kept.fairy is None and pool.checkedout() == 0
        run_lean(engine, lambda tx: _insert(tx, "0xF"))
        assert kept.fairy is not None and pool.checkedout() == 1
        assert _addresses(engine) == ["0xA", "0xB", "0xC", "0xE", "0xF"]
        kept.release()
        run_lean(engine, lambda tx: _insert(tx, "0xG"))  # no longer kept
        assert pool.checkedout() == 0
    finally:
        kept.release()
        engine.dispose()


def test_only_sqlite_keeps_a_connection(database_url: str) -> None:
    from ledger.db import get_engine, keep_connection

    kept = keep_connection(get_engine(database_url))
    assert (kept is not None) == database_url.startswith("sqlite")
    if kept is not None:
        kept.release()


def test_the_api_requires_the_latest_schema(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with pytest.raises(ConfigurationError, match=r"never been migrated.*metaledger db upgrade"):
            require_latest(engine)
        upgrade(database_url)
        require_latest(engine)
    finally:
        engine.dispose()
