"""schemathesis against the OpenAPI schema: no generated request gets a 5xx (bounded examples)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from api.app import create_app
from ledger.chain.deployment import Deployment
from ledger.db import dispose_engine
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, LiveServer, make_settings, own_starter_deck
from tests.api.helpers import sign_in

pytestmark = pytest.mark.chain

schema = schemathesis.openapi.from_dict(create_app().openapi())


@pytest.fixture(scope="module")
def fuzz_target(
    anvil: AnvilNode,
    deployment: Deployment,
    deployment_file: Path,
    tmp_path_factory: pytest.TempPathFactory,
    broker_url: str,
) -> Iterator[tuple[str, dict[str, str]]]:
    """One live API on SQLite for the whole module, with a signed-in player who owns a deck; a
    broker and a worker heartbeat, so that every component is up (/healthz answers 200)."""
    from ledger.db import get_engine
    from ledger.health.heartbeat import HeartbeatThread

    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
    upgrade(url)
    heartbeat = HeartbeatThread(get_engine(url), "celery@fuzz", 5.0)
    heartbeat.beat()
    heartbeat.start()
    snapshot = anvil.snapshot()
    import httpx

    with (
        LiveServer(make_settings(anvil, url, deployment_file, broker_url=broker_url)) as server,
        httpx.Client(base_url=server.url, headers={"Host": "testserver"}) as client,
    ):
        player = sign_in(client, PLAYER_KEYS[0])
        own_starter_deck(anvil, deployment, player, "metaversus")
        yield server.url, player.headers
    heartbeat.stop()
    anvil.revert(snapshot)
    dispose_engine(url)


@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors(case: schemathesis.Case, fuzz_target: tuple[str, dict[str, str]]) -> None:
    base_url, headers = fuzz_target
    response = case.call(base_url=base_url, headers={**headers, "Host": "testserver"})
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:300]}"
    )
    if response.status_code >= 400:
        content_type = response.headers.get("content-type")
        content_type = content_type[0] if isinstance(content_type, list) else content_type
        assert str(content_type).startswith("application/problem+json"), response.text[:200]
