"""The one unit of work, on SQLite and PostgreSQL: commit on success, roll back on error, the
error mapping (a concurrent clash is Conflict, an unreachable database ServiceUnavailable), a
refusal that keeps its change only when asked, and hooks that run only after a commit."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from ledger.db import after_commit, make_engine, run_unit, unit_of_work
from ledger.db.migrations import require_latest, upgrade
from ledger.db.models import Wallet, utcnow
from ledger.db.unit import keep_on_refusal
from ledger.errors import ConfigurationError, Conflict, NotFound, ServiceUnavailable


def _add(db: Session, address: str) -> None:
    now = utcnow()
    db.add(Wallet(address=address, is_contract=False, created_at=now, last_seen_at=now))
    db.flush()


def _addresses(engine: Engine) -> list[str]:
    with unit_of_work(engine, write=False) as db:
        return sorted(db.scalars(select(Wallet.address)))  # type: ignore[arg-type]


def test_commits_on_success_and_rolls_back_on_error(engine: Engine) -> None:
    run_unit(engine, lambda db: _add(db, "0xA"))
    with pytest.raises(RuntimeError), unit_of_work(engine) as db:
        _add(db, "0xB")
        raise RuntimeError("boom")
    with pytest.raises(NotFound), unit_of_work(engine) as db:
        _add(db, "0xC")
        raise NotFound("a refusal rolls back too")
    assert _addresses(engine) == ["0xA"]


def test_a_clash_is_a_conflict(engine: Engine) -> None:
    run_unit(engine, lambda db: _add(db, "0xA"))
    with pytest.raises(Conflict, match="conflicts with a concurrent change"):
        run_unit(engine, lambda db: _add(db, "0xA"))


def test_a_refusal_keeps_its_change_only_when_asked(engine: Engine) -> None:
    def refuse(db: Session, address: str, error: Exception) -> None:
        _add(db, address)
        keep_on_refusal(db)
        raise error

    with pytest.raises(Conflict):
        run_unit(engine, lambda db: refuse(db, "0xKEPT", Conflict("the match is over")))
    with pytest.raises(KeyError):  # not a refusal: a bug, rolled back
        run_unit(engine, lambda db: refuse(db, "0xLOST", KeyError("bug")))
    assert _addresses(engine) == ["0xKEPT"]


def test_after_commit_hooks_run_only_after_a_commit(engine: Engine) -> None:
    ran: list[str] = []

    def work(db: Session, name: str, fail: bool) -> None:
        _add(db, name)
        after_commit(db, lambda: ran.append(name))
        assert name not in ran  # not before the commit
        if fail:
            raise NotFound("no")

    run_unit(engine, lambda db: work(db, "0xA", False))
    with pytest.raises(NotFound):
        run_unit(engine, lambda db: work(db, "0xB", True))
    assert ran == ["0xA"]


def test_an_unreachable_database_is_service_unavailable(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}")
    with pytest.raises(ServiceUnavailable, match="the database is unavailable"):
        run_unit(engine, lambda db: _add(db, "0xA"))


def test_the_api_requires_the_latest_schema(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with pytest.raises(ConfigurationError, match=r"never been migrated.*metaledger db upgrade"):
            require_latest(engine)
        upgrade(database_url)
        require_latest(engine)
    finally:
        engine.dispose()
