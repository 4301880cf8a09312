"""Alembic migrations of the MetaLedger database (one linear history; config built in code)."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config

HERE = Path(__file__).resolve().parent


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at this package's scripts and `url` (default: settings)."""
    from ledger.db import normalise_url

    if url is None:
        from ledger.settings import get_settings

        url = get_settings().resolved_database_url
    config = Config(str(HERE / "alembic.ini"))
    config.set_main_option("script_location", str(HERE))
    config.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Upgrade the database at `url` to `revision` (creating the SQLite file's folder)."""
    from alembic import command
    from sqlalchemy.engine import make_url

    from ledger.db import normalise_url

    if url is None:
        from ledger.settings import get_settings

        url = get_settings().resolved_database_url
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), revision)


def current(url: str | None = None) -> str | None:
    """The database's current revision (None if never migrated)."""
    from alembic.runtime.migration import MigrationContext

    from ledger.db import make_engine

    engine = make_engine(alembic_config(url).get_main_option("sqlalchemy.url") or "")
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()
