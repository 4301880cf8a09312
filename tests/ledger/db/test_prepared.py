"""Prepared statements, on SQLite and PostgreSQL: what they write is what the ORM reads back
(JSON, timezone-aware datetimes, booleans through the column types' own processors), what they
read is what the ORM reads, they run in the unit of work's transaction (a rollback undoes them),
and a driver error is SQLAlchemy's (so the unit of work maps a clash to Conflict)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from ledger.db import Transaction, run_lean, run_unit, unit_of_work
from ledger.db.models import Wallet
from ledger.db.models.indexing import TokenTransfer
from ledger.db.prepared import Prepared, _bind_processor, attach, insert_attached
from ledger.errors import Conflict

_WALLETS = Wallet.__table__  # type: ignore[attr-defined]
_INSERT = Prepared(insert(_WALLETS))
_READ = Prepared(select(_WALLETS).where(_WALLETS.c.address == bindparam("address")))
_ALL = Prepared(select(_WALLETS.c.address).order_by(_WALLETS.c.address).limit(bindparam("n")))
_BUMP = Prepared(
    update(_WALLETS)
    .where(_WALLETS.c.address == bindparam("address"))
    .values(lock_version=bindparam("set_lock_version"))
)
SEEN = datetime(2026, 12, 1, 14, 30, 5, 123456, tzinfo=UTC)


def _row(address: str) -> dict[str, object]:
    return {
        "address": address,
        "is_contract": True,
        "created_at": SEEN,
        "last_seen_at": SEEN,
        "lock_version": 3,
    }


def test_written_rows_read_back_the_same_through_the_orm(engine: Engine) -> None:
    run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA"), _row("0xB")]))

    def orm(db: Session) -> Wallet:
        wallet = db.get(Wallet, "0xA")
        assert wallet is not None
        return wallet

    wallet = run_unit(engine, orm, write=False)
    assert (wallet.is_contract, wallet.created_at, wallet.lock_version) == (True, SEEN, 3)
    read = run_unit(engine, lambda db: _READ.first(db, {"address": "0xA"}), write=False)
    assert read is not None
    assert dict(zip(_WALLETS.c.keys(), read, strict=True)) == _row("0xA")
    assert run_unit(engine, lambda db: _READ.first(db, {"address": "0xC"}), write=False) is None
    assert run_unit(engine, lambda db: _ALL.all(db, {"n": 1}), write=False) == [("0xA",)]


def test_they_run_in_the_units_transaction(engine: Engine) -> None:
    run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA")]))
    with pytest.raises(RuntimeError), unit_of_work(engine) as db:
        assert _BUMP.execute(db, {"address": "0xA", "set_lock_version": 9}) == 1
        raise RuntimeError("roll back")
    read = run_unit(engine, lambda db: _READ.first(db, {"address": "0xA"}), write=False)
    assert read is not None and read[-1] == 3
    assert (
        run_unit(engine, lambda db: _BUMP.execute(db, {"address": "0xZ", "set_lock_version": 1}))
        == 0
    )


def test_a_clash_is_a_conflict(engine: Engine) -> None:
    run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA")]))
    with pytest.raises(Conflict):
        run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA")]))
    assert run_unit(engine, lambda db: _ALL.all(db, {"n": 10}), write=False) == [("0xA",)]


def _attached(db: Session | Transaction, address: str) -> Wallet | None:
    """Wallet `address` read by a prepared statement of its columns but `created_at`, attached
    to the unit's Session."""
    columns = [c for c in _WALLETS.c if c.key != "created_at"]
    row = Prepared(select(*columns).where(_WALLETS.c.address == bindparam("a"))).first(
        db, {"a": address}
    )
    assert row is not None
    session = db.orm if isinstance(db, Transaction) else db
    return attach(session, Wallet, dict(zip([c.key for c in columns], row, strict=True)))


def test_an_attached_row_is_the_orms_as_loaded(engine: Engine) -> None:
    run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA")]))

    def change(db: Session) -> tuple[object, ...]:
        wallet = _attached(db, "0xA")
        assert wallet is not None and wallet in db and not db.dirty
        assert _attached(db, "0xA") is None  # the session holds it: the ORM reads it
        assert db.get(Wallet, "0xA") is wallet
        created = wallet.created_at  # the column not read: loaded on first access
        wallet.lock_version = 7
        return created, wallet.is_contract, list(db.dirty)

    created, is_contract, dirty = run_unit(engine, change)
    assert (created, is_contract, len(dirty)) == (SEEN, True, 1)
    read = run_unit(engine, lambda db: _READ.first(db, {"address": "0xA"}), write=False)
    assert read is not None and read[-1] == 7  # its change flushed as an UPDATE


def test_a_lean_unit_whose_session_only_attached_rows_commits(engine: Engine) -> None:
    run_unit(engine, lambda db: _INSERT.execute_many(db, [_row("0xA")]))

    def work(tx: Transaction) -> None:
        assert _BUMP.execute(tx, {"address": "0xA", "set_lock_version": 5}) == 1
        assert _attached(tx, "0xA") is not None  # its Session never uses the connection

    run_lean(engine, work)
    read = run_unit(engine, lambda db: _READ.first(db, {"address": "0xA"}), write=False)
    assert read is not None and read[-1] == 5


@settings(max_examples=300, deadline=None)
@given(
    moment=st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    offset_minutes=st.integers(-23 * 60, 23 * 60),
)
def test_a_timestamp_binds_as_sqlalchemys_processor_binds_it(
    moment: datetime, offset_minutes: int
) -> None:
    # the fast path (aware UTC datetimes) and the general one (other offsets, naive: refused)
    # against SQLAlchemy's own processor of the column, on both dialects
    column = _WALLETS.c.created_at
    shifted = moment.astimezone(timezone(timedelta(minutes=offset_minutes)))
    for dialect in (sqlite.dialect(), postgresql.psycopg.dialect()):
        general = column.type.dialect_impl(dialect).bind_processor(dialect)
        fast = _bind_processor(column.type, dialect, general)
        assert fast is not general
        for value in (moment, shifted, None):
            assert fast(value) == general(value)
        with pytest.raises(ValueError, match="timezone"):
            fast(moment.replace(tzinfo=None))


def test_inserted_instances_are_persistent_as_after_a_flush(engine: Engine) -> None:
    def insert_two(db: Session) -> None:
        earlier = Wallet(address="0xB", created_at=SEEN)
        db.add(earlier)  # pending: flushed before the prepared INSERTs
        wallets = [Wallet(**_row("0xA")), Wallet(address="0xC", last_seen_at=SEEN)]
        insert_attached(db, *wallets)
        assert all(w in db for w in wallets) and not db.new and not db.dirty
        wallets[1].lock_version = 5  # a change after: flushed as an UPDATE

    run_unit(engine, insert_two)

    def read(db: Session) -> list[tuple[object, ...]]:
        return [
            (w.address, w.is_contract, w.created_at, w.last_seen_at, w.lock_version)
            for w in db.exec(select(Wallet).order_by(Wallet.address)).scalars()  # type: ignore[arg-type]
        ]

    stored = run_unit(engine, read, write=False)
    assert [s[0] for s in stored] == ["0xA", "0xB", "0xC"]
    assert stored[0] == ("0xA", True, SEEN, SEEN, 3) and stored[2][3:] == (SEEN, 5)
    with pytest.raises(Conflict):  # the primary key refuses a second 0xA
        run_unit(engine, lambda db: insert_attached(db, Wallet(address="0xA")))
    assert len(run_unit(engine, read, write=False)) == 3


def _transfer(log_index: int, transfer_id: int | None = None) -> TokenTransfer:
    return TokenTransfer(
        id=transfer_id,
        block_number=7,
        block_hash="0x" + "aa" * 32,
        tx_hash="0x" + "bb" * 32,
        log_index=log_index,
        operator="0xO",
        from_address="0xF",
        to_address="0xT",
        token_id="0x" + "01" * 32,
        amount=2,
    )


def test_an_autoincrement_key_left_none_is_generated_and_set(engine: Engine) -> None:
    def insert_three(db: Session) -> list[int | None]:
        made = [_transfer(0), _transfer(1, transfer_id=40), _transfer(2)]
        insert_attached(db, *made)
        assert not db.dirty and all(t in db for t in made)
        return [t.id for t in made]

    first, given, third = run_unit(engine, insert_three)
    assert given == 40 and first is not None and third is not None and first != third
    stored = run_unit(
        engine,
        lambda db: [
            (t.id, t.log_index)
            for t in db.exec(select(TokenTransfer)).scalars()  # type: ignore[arg-type]
        ],
        write=False,
    )
    assert sorted(stored) == sorted([(first, 0), (40, 1), (third, 2)])
