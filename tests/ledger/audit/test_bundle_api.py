"""End to end: matches played through the API (real HTTP, Anvil, SQLite) are anchored, served
by GET /matches/{id}/bundle, and verify with nothing but the bundle and the RPC URL."""

from __future__ import annotations

import httpx
import pytest

from engine import get_game
from ledger.audit.verify import CHECKS, verify_bundle
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import start_duel
from tests.api.helpers import (
    acknowledge,
    commit_and_reveal,
    play_bot_match,
    play_out,
    register_deck,
)
from tests.ledger.anchor_support import anchor_pending

pytestmark = pytest.mark.chain


def test_api_matches_are_anchored_and_their_bundles_verify(
    api: tuple[httpx.Client, str], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    client, url = api
    game = get_game("metax")
    a, b, duel_id, decks = start_duel(client, evm_snapshot, deployment, game.name)
    duel = {"id": duel_id}
    assert play_out({0: a, 1: b}, duel["id"])["status"] == "finished"
    acknowledge(a, duel["id"])
    acknowledge(b, duel["id"])

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
    started = b.get(f"/matches/{resigned['id']}").json()
    body = b.sessions[resigned["id"]].resignation(started["entries"], started["head_hash"])
    r = b.post(f"/matches/{resigned['id']}/resign", body)
    assert r.status_code == 200, r.text
    b.sessions[resigned["id"]].check(r.json()["forfeit_entry"])
    acknowledge(a, resigned["id"])

    # not anchored yet: 409, with the reason
    r = client.get(f"/matches/{duel['id']}/bundle")
    assert r.status_code == 409 and r.json()["reason"] == "not-anchored-yet", r.text
    assert client.get(f"/matches/0x{'ab' * 32}/bundle").status_code == 404

    anchor_pending(url, evm_snapshot.rpc_url, deployment.match_ledger)

    acknowledged: dict[str, str] = {}
    for match in (duel, versus_bot, resigned):
        r = client.get(f"/matches/{match['id']}/bundle")
        assert r.status_code == 200, r.text
        bundle = r.json()
        assert bundle["format"] == "metaledger.bundle/3"
        assert all("receipt" not in e for e in bundle["transcript"]["entries"])
        checks = verify_bundle(bundle, evm_snapshot.rpc_url)
        assert [c.name for c in checks] == list(CHECKS)
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]
        reports = {c.name: c for c in checks}
        assert not reports["player-signatures"].info and not reports["seat-authorizations"].info
        assert reports["players-acknowledged"].info
        acknowledged[match["id"]] = reports["players-acknowledged"].detail
    assert acknowledged[duel["id"]].startswith("2/2: ")
    assert acknowledged[versus_bot["id"]].startswith("0/1: seat 0 did not acknowledge")
    # b resigned and did not acknowledge: its resignation is its last signature, covering all
    assert acknowledged[resigned["id"]] == (
        "1/2: seat 0 signed the end ("
        + str(len(bundle["transcript"]["entries"]))
        + " entries); seat 1 did not acknowledge: its last signature covers every entry"
    )
    replayed = {c.name: c.detail for c in checks}["replay"]
    assert replayed.endswith(
        f"seat 0 ({a.address}) wins by the other seat's resign, final state hash matches"
    )
    assert bundle["transcript"]["engine"]["forfeit"] == {"player": 1, "reason": "resign"}
