"""The API refuses to start, with a message saying how to fix it, on an unmigrated database or
a missing deployment file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from api.app import create_app
from ledger.db import dispose_engine
from ledger.devstack.anvil import AnvilNode
from ledger.errors import ConfigurationError
from tests.api.conftest import make_settings

pytestmark = pytest.mark.chain


async def _start(app: object) -> None:
    async with app.router.lifespan_context(app):  # type: ignore[attr-defined]
        pass


def test_unmigrated_database(anvil: AnvilNode, deployment_file: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    with pytest.raises(ConfigurationError, match="metaledger db upgrade"):
        asyncio.run(_start(create_app(make_settings(anvil, url, deployment_file))))
    dispose_engine(url)


def test_missing_deployment_file(anvil: AnvilNode, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    with pytest.raises(ConfigurationError, match="no deployment file"):
        asyncio.run(_start(create_app(make_settings(anvil, url, tmp_path / "missing.json"))))
    dispose_engine(url)
