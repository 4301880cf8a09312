"""The Alembic migrations build exactly the schema of ledger.db.models, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlmodel import SQLModel

import ledger.db.models  # noqa: F401
from ledger.db import make_engine
from ledger.db.migrations import alembic_config, current, upgrade


def test_one_linear_history() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1


def test_migrations_match_the_models(database_url: str) -> None:
    upgrade(database_url)
    upgrade(database_url)  # idempotent
    assert (
        current(database_url)
        == ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    )
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(
                MigrationContext.configure(conn, opts={"compare_type": True}), SQLModel.metadata
            )
            tables = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert diff == [], diff
    assert set(SQLModel.metadata.tables) <= tables


def test_db_upgrade_command(tmp_path: object) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from ledger.cli import app

    url = f"sqlite:///{Path(str(tmp_path)) / 'sub' / 'cli.db'}"
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    result = CliRunner().invoke(app, ["db", "upgrade", "--url", url])
    assert result.exit_code == 0, result.output
    assert f"database at revision {head}" in result.output
    assert CliRunner().invoke(app, ["db", "current", "--url", url]).output.strip() == head


def test_live_seats_are_filled_in_from_their_matches_status(database_url: str) -> None:
    """Revision 0007 on a database with matches: the seats of ended matches are not live."""
    from sqlalchemy import MetaData, Table, select

    from ledger.db.models import Wallet
    from tests.ledger.match_support import match_row

    upgrade(database_url, "0006")
    engine = make_engine(database_url)
    owner = "0x" + "11" * 20
    statuses = ("open", "seeding", "active", "finished", "cancelled")
    try:
        with engine.begin() as conn:
            tables = MetaData()
            wallets, matches, seats = (
                Table(name, tables, autoload_with=conn)
                for name in ("wallets", "matches", "match_seats")
            )
            assert "live" not in seats.c
            conn.execute(wallets.insert().values(**Wallet(address=owner).model_dump()))
            for n, status in enumerate(statuses):
                row = match_row(f"0x{n:064x}", owner, status)
                conn.execute(matches.insert().values(**row.model_dump()))
                for seat in (0, 1):
                    conn.execute(
                        seats.insert().values(
                            match_id=row.id,
                            seat=seat,
                            address=owner,
                            deck_hash="0x",
                            cards={},
                            is_bot=False,
                        )
                    )
        upgrade(database_url)
        with engine.connect() as conn:
            seats = Table("match_seats", MetaData(), autoload_with=conn)
            live = dict(
                conn.execute(select(seats.c.match_id, seats.c.live).where(seats.c.seat == 1)).all()
            )
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("match_seats")}
    finally:
        engine.dispose()
    assert [live[f"0x{n:064x}"] for n in range(5)] == [True, True, True, False, False]
    assert "ix_match_seats_address_live" in indexes and "ix_match_seats_address" not in indexes

    from alembic import command

    command.downgrade(alembic_config(database_url), "0006")  # and back: the seats unchanged
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("match_seats")}
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("match_seats")}
            count = conn.exec_driver_sql("SELECT count(*) FROM match_seats").scalar()
    finally:
        engine.dispose()
    assert "live" not in columns and count == 10
    assert "ix_match_seats_address" in indexes and "ix_match_seats_address_live" not in indexes
