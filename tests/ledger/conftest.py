"""Fixtures of the ledger tests: a fresh, fully created database on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from ledger.db import create_all, make_engine


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a fresh database (SQLite, then PostgreSQL) with every table created."""
    engine = make_engine(database_url)
    create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()
