"""schemathesis against the OpenAPI schema: no generated request gets a 5xx (bounded examples)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from api.app import create_app
from ledger.db import dispose_engine
from ledger.deploy import Deployment
from ledger.devchain import AnvilNode
from ledger.migrations import upgrade
from tests.api.conftest import PLAYER_KEYS, LiveServer, make_settings, mint
from tests.api.helpers import register_deck, sign_in

pytestmark = pytest.mark.chain

schema = schemathesis.openapi.from_dict(create_app().openapi())


@pytest.fixture(scope="module")
def fuzz_target(
    anvil: AnvilNode,
    deployment: Deployment,
    deployment_file: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, dict[str, str]]]:
    """One live API on SQLite for the whole module, with a signed-in player who owns a deck."""
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
    upgrade(url)
    snapshot = anvil.snapshot()
    import httpx

    with (
        LiveServer(make_settings(anvil, url, deployment_file)) as server,
        httpx.Client(base_url=server.url, headers={"Host": "testserver"}) as client,
    ):
        player = sign_in(client, PLAYER_KEYS[0])
        from engine import get_game

        g = get_game("metaversus")
        deck = dict(g.starter_decks[0])
        mint(
            anvil,
            deployment,
            {player.address: {("metaversus", c): n for c, n in g.required_tokens(deck).items()}},
        )
        register_deck(player, "metaversus", deck)
        yield server.url, player.headers
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
