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
