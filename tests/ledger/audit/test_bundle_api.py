"""End to end: matches played through the API (real HTTP, Anvil, SQLite) are anchored, served
by GET /matches/{id}/bundle, and verify with nothing but the bundle and the RPC URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine import get_game
from ledger.anchoring.service import AnchorConfig, Anchorer
from ledger.audit.verify import CHECKS, verify_bundle
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.db import dispose_engine, make_engine
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, LiveServer, make_settings, mint
from tests.api.helpers import commit_and_reveal, play_bot_match, play_out, register_deck, sign_in
from tests.ledger.anchor_support import ANCHORER_KEY

pytestmark = pytest.mark.chain


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


def test_api_matches_are_anchored_and_their_bundles_verify(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    client, url = api
    game = get_game("metax")
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    decks = [dict(game.starter_decks[0]), dict(game.starter_decks[1])]
    mint(
        evm_snapshot,
        deployment,
        {
            p.address: {(game.name, c): n for c, n in game.required_tokens(d).items()}
            for p, d in zip((a, b), decks, strict=True)
        },
    )
    d0, d1 = register_deck(a, game.name, decks[0]), register_deck(b, game.name, decks[1])
    duel = a.post("/matches", {"game": game.name, "deck_id": d0["id"]}).json()
    assert b.post(f"/matches/{duel['id']}/join", {"deck_id": d1["id"]}).status_code == 200
    commit_and_reveal([a, b], duel["id"])
    assert play_out({0: a, 1: b}, duel["id"])["status"] == "finished"

    d2 = register_deck(a, game.name, decks[0])
    r = a.post(
        "/matches", {"game": game.name, "deck_id": d2["id"], "opponent": "bot", "bot": "random"}
    )
    assert r.status_code == 201, r.text
    versus_bot = r.json()
    commit_and_reveal([a], versus_bot["id"])
    assert play_bot_match(a, versus_bot["id"])["status"] == "finished"

    # a match that ends by resignation: the forfeit is in the signed transcript
    d3, d4 = register_deck(a, game.name, decks[0]), register_deck(b, game.name, decks[1])
    resigned = a.post("/matches", {"game": game.name, "deck_id": d3["id"]}).json()
    assert b.post(f"/matches/{resigned['id']}/join", {"deck_id": d4["id"]}).status_code == 200
    commit_and_reveal([a, b], resigned["id"])
    r = b.post(f"/matches/{resigned['id']}/resign")
    assert r.status_code == 200, r.text

    # not anchored yet: 409, with the reason
    r = client.get(f"/matches/{duel['id']}/bundle")
    assert r.status_code == 409 and r.json()["reason"] == "not-anchored-yet", r.text
    assert client.get(f"/matches/0x{'ab' * 32}/bundle").status_code == 404

    engine = make_engine(url)
    try:
        Anchorer(
            engine,
            JsonRpc(evm_snapshot.rpc_url),
            deployment.match_ledger,
            ANCHORER_KEY,
            AnchorConfig(),
        ).run_until_idle(force=True)
    finally:
        engine.dispose()

    for match in (duel, versus_bot, resigned):
        r = client.get(f"/matches/{match['id']}/bundle")
        assert r.status_code == 200, r.text
        bundle = r.json()
        checks = verify_bundle(bundle, evm_snapshot.rpc_url)
        assert [c.name for c in checks] == list(CHECKS)
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]
    replayed = {c.name: c.detail for c in checks}["replay"]
    assert replayed.endswith(
        f"seat 0 ({a.address}) wins by the other seat's resign, final state hash matches"
    )
    assert bundle["transcript"]["forfeit"] == {"player": 1, "reason": "resign"}
