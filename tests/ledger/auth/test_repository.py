"""Sign-in storage on SQLite and PostgreSQL: a nonce is consumed once, before it expires;
expired nonces are purged; a session is found by its token hash only."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from ledger.auth import repository as repo
from ledger.db import run_unit, unit_of_work
from ledger.db.models import Session as SessionRow
from ledger.db.models import utcnow


def test_a_nonce_is_consumed_once_and_not_after_it_expires(engine: Engine) -> None:
    now = utcnow()
    with unit_of_work(engine) as db:
        repo.add_nonce(db, "fresh0001", now=now, expires_at=now + timedelta(minutes=10))
        repo.add_nonce(db, "stale0001", now=now, expires_at=now + timedelta(seconds=1))
    later = now + timedelta(seconds=5)
    assert run_unit(engine, lambda db: repo.consume_nonce(db, "fresh0001", now=later))
    assert not run_unit(engine, lambda db: repo.consume_nonce(db, "fresh0001", now=later))
    assert not run_unit(engine, lambda db: repo.consume_nonce(db, "stale0001", now=later))
    assert not run_unit(engine, lambda db: repo.consume_nonce(db, "unknown01", now=later))
    assert run_unit(engine, lambda db: repo.purge_nonces(db, now=later)) == 1
    assert run_unit(engine, repo.count_nonces) == 1


def test_a_session_is_found_by_its_token_hash(engine: Engine) -> None:
    now = utcnow()
    expires = now + timedelta(hours=1)
    row = SessionRow(token_hash="ab" * 32, address="0xA", created_at=now, expires_at=expires)
    with unit_of_work(engine) as db:
        repo.upsert_wallet(db, "0xA", is_contract=False, now=now)
        repo.add_session(db, row)
    owner = run_unit(engine, lambda db: repo.session_owner(db, "ab" * 32), write=False)
    assert owner is not None
    address, until, revoked = owner
    assert address == "0xA" and not revoked and until.tzinfo is not None
    assert abs((until - expires).total_seconds()) < 1
    assert run_unit(engine, lambda db: repo.session_owner(db, "cd" * 32)) is None
