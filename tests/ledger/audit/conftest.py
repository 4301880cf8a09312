"""Fixtures of the audit tests: the API over HTTP on a fresh database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ledger.chain.deployment import Deployment
from ledger.db import dispose_engine
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import LiveServer, make_settings


@pytest.fixture
def api(
    evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> Iterator[tuple[httpx.Client, str]]:
    """The API over HTTP on a fresh, migrated SQLite database; yields (client, database URL)."""
    url = f"sqlite:///{tmp_path / 'api.db'}"
    upgrade(url)
    deployment_file = tmp_path / "deployment.json"
    deployment.save(deployment_file)
    with (
        LiveServer(make_settings(evm_snapshot, url, deployment_file)) as server,
        httpx.Client(base_url=server.url, timeout=60, headers={"Host": "testserver"}) as client,
    ):
        yield client, url
    dispose_engine(url)
