"""Alembic migrations of the MetaLedger database (one linear history; config built in code)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from alembic.config import Config

if TYPE_CHECKING:
    from sqlalchemy import Engine

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


def head_revision() -> str:
    """The latest revision of this package's migration history."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None, "the migration history is empty"
    return head


def revision_of(engine: Engine) -> str | None:
    """The revision the database behind `engine` is at (None if never migrated);
    ServiceUnavailable if it does not answer."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy.exc import OperationalError

    from ledger.errors import ServiceUnavailable

    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except OperationalError as exc:
        shown = engine.url.render_as_string(hide_password=True)
        raise ServiceUnavailable(f"the database at {shown} does not answer: {exc.orig}") from exc


def require_latest(engine: Engine) -> None:
    """ConfigurationError saying how to fix it unless the database is at the latest revision."""
    from ledger.errors import ConfigurationError

    found, latest = revision_of(engine), head_revision()
    if found != latest:
        shown = engine.url.render_as_string(hide_password=True)
        where = "has never been migrated" if found is None else f"is at revision {found}"
        raise ConfigurationError(
            f"the database at {shown} {where}, not at the latest revision {latest}; "
            "run `metaledger db upgrade`"
        )
