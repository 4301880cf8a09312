"""Deck commitments over HTTP: rules, ownership at the pinned block, copies in live matches."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from engine import get_game
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, mint
from tests.api.helpers import Player, register_deck, sign_in

pytestmark = pytest.mark.chain
GAME = "metamasters"


def _needs(game: str, deck: dict[str, int]) -> dict[tuple[str, str], int]:
    return {(game, c): n for c, n in get_game(game).required_tokens(deck).items()}


def _holder(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> tuple[Player, dict[str, int]]:
    """A signed-in player who holds the cards of the first starter deck, and that deck."""
    player = sign_in(client, PLAYER_KEYS[0])
    deck = dict(get_game(GAME).starter_decks[0])
    mint(anvil, deployment, {player.address: _needs(GAME, deck)})
    return player, deck


def test_deck_commitment_records_the_pinned_block(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player, deck = _holder(client, anvil, deployment)
    commitment = register_deck(player, GAME, deck)
    block = anvil.w3.eth.get_block(commitment["block_number"])
    assert commitment["block_hash"] == block["hash"].to_0x_hex()
    assert commitment["owner"] == player.address and commitment["deck_hash"].startswith("0x")
    assert player.get(f"/decks/{commitment['id']}").json()["deck_hash"] == commitment["deck_hash"]
    other = sign_in(client, PLAYER_KEYS[1])
    assert other.get(f"/decks/{commitment['id']}").status_code == 403


def test_unowned_cards_are_listed_with_needed_and_held(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player = sign_in(client, PLAYER_KEYS[0])
    deck = dict(get_game(GAME).starter_decks[0])
    needs = _needs(GAME, deck)
    short_card = sorted(needs)[0]
    held = dict(needs)
    held[short_card] -= 1
    del held[sorted(needs)[1]]
    mint(anvil, deployment, {player.address: {k: v for k, v in held.items() if v > 0}})
    response = player.post("/decks", {"game": GAME, "cards": deck})
    assert response.status_code == 409, response.text
    body = response.json()
    assert body["type"].endswith("/not-owned") and body["block_number"] > 0
    listed = {c["card"]: (c["needed"], c["held"]) for c in body["cards"]}
    assert listed == {
        short_card[1]: (needs[short_card], needs[short_card] - 1),
        sorted(needs)[1][1]: (needs[sorted(needs)[1]], 0),
    }


@pytest.mark.parametrize("game", ["metax", "metamasters", "metaversus"])
def test_deck_rules_are_checked_first(client: httpx.Client, game: str) -> None:
    player = sign_in(client, PLAYER_KEYS[0])
    deck = dict(get_game(game).starter_decks[0])
    card = sorted(get_game(game).required_tokens(deck))[0]
    deck[card] += 10
    response = player.post("/decks", {"game": game, "cards": deck})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["type"].endswith("/deck-rejected")
    assert body["violations"] and all(v["rule"].startswith(game) for v in body["violations"])


def test_unknown_game_and_malformed_decks(client: httpx.Client) -> None:
    player = sign_in(client, PLAYER_KEYS[0])
    assert player.post("/decks", {"game": "chess", "cards": {"x": 1}}).status_code == 404
    bad = player.post("/decks", {"game": GAME, "cards": {"MM-A01": -1}})
    assert bad.status_code == 422 and bad.headers["content-type"].startswith(
        "application/problem+json"
    )
    assert player.post("/decks", {"game": GAME, "cards": {}}).status_code == 422


def test_same_copies_cannot_be_in_two_live_matches(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player, deck = _holder(client, anvil, deployment)
    first = register_deck(player, GAME, deck)
    second = register_deck(player, GAME, deck)  # not in a match yet: allowed
    assert player.post("/matches", {"game": GAME, "deck_id": first["id"]}).status_code == 201
    # the copies are now committed to a live match
    again = player.post("/matches", {"game": GAME, "deck_id": second["id"]})
    assert again.status_code == 409, again.text
    assert again.json()["type"].endswith("/copies-committed")
    assert all(c["committed_elsewhere"] == c["needed"] for c in again.json()["cards"])
    third = player.post("/decks", {"game": GAME, "cards": deck})
    assert third.status_code == 409 and third.json()["type"].endswith("/not-owned")


def test_collection_lists_held_cards(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player = sign_in(client, PLAYER_KEYS[0])
    mint(
        anvil,
        deployment,
        {player.address: {(GAME, "MM-A01"): 3, ("metax", get_game("metax").cards[0]["id"]): 1}},
    )
    body = client.get(f"/wallets/{player.address}/cards").json()
    got = {(c["game"], c["card_id"]): c["balance"] for c in body["cards"]}
    assert got == {(GAME, "MM-A01"): 3, ("metax", get_game("metax").cards[0]["id"]): 1}
    cards = client.get(f"/games/{GAME}/cards").json()
    assert len(cards) == len(get_game(GAME).cards) and all(
        c["token_id"].startswith("0x") for c in cards
    )


def test_collection_comes_from_the_indexer_once_it_ran(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, api_settings: object
) -> None:
    from ledger.chain.transport import JsonRpc
    from ledger.db import get_engine
    from ledger.indexing.service import Indexer

    player = sign_in(client, PLAYER_KEYS[0])
    assert client.get(f"/wallets/{player.address}/cards?source=indexer").status_code == 404
    mint(anvil, deployment, {player.address: {(GAME, "MM-A01"): 2}})
    url = api_settings.resolved_database_url  # type: ignore[attr-defined]
    Indexer(
        get_engine(url), JsonRpc(anvil.rpc_url), deployment.card_token, deployment.deployment_block
    ).run_once()
    body = client.get(f"/wallets/{player.address}/cards").json()
    assert body["source"] == "indexer"
    assert [(c["card_id"], c["balance"]) for c in body["cards"]] == [("MM-A01", 2)]
    assert client.get(f"/wallets/{player.address}/cards?source=chain").json()["source"] == "chain"


def _problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


def test_hostile_deck_bodies_get_problem_json_naming_the_field(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player, deck = _holder(client, anvil, deployment)
    hostile: list[Any] = [
        {"game": GAME, "cards": [["MM-A01", 1]]},
        {"game": GAME, "cards": {"MM-A01": 10_001}},
        {"game": GAME, "cards": {"MM-A01": "1"}},
        {"game": GAME, "cards": {"MM-A01": True}},
        {"game": GAME, "cards": {"x" * 65: 1}},
        {"game": ["metamasters"], "cards": deck},
        {"game": GAME, "cards": {f"c{i}": 1 for i in range(1001)}},
        {"game": GAME, "cards": deck, "extra": 1},
        {"cards": deck},
        [1, 2, 3],
        "deck",
    ]
    for body in hostile:
        problem = _problem(player.post("/decks", body), 422)
        assert (
            "cards" in json.dumps(problem)
            or "game" in json.dumps(problem)
            or ("body" in json.dumps(problem) or "extra" in json.dumps(problem))
        ), problem
    raw = client.post(
        "/decks", content=b'{"game": "metamasters", "cards": {', headers=player.headers
    )
    assert 400 <= raw.status_code < 500 and raw.headers["content-type"].startswith(
        "application/problem+json"
    )
    unknown = dict(deck)
    unknown["MM-NOT-A-CARD"] = 1
    assert player.post("/decks", {"game": GAME, "cards": unknown}).status_code == 422
    # no token, a forged token: 401 before any rule or chain read
    assert _problem(client.post("/decks", json={"game": GAME, "cards": deck}), 401)
    forged = client.post(
        "/decks", json={"game": GAME, "cards": deck}, headers={"Authorization": "Bearer nope"}
    )
    assert _problem(forged, 401)
    # the route still works for the same player afterwards
    assert player.post("/decks", {"game": GAME, "cards": deck}).status_code == 201


def test_registrations_at_the_same_time_share_pinned_reads(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    player, deck = _holder(client, anvil, deployment)
    with ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(lambda _i: player.post("/decks", {"game": GAME, "cards": deck}), range(16))
        )
    assert [a.status_code for a in answers] == [201] * 16, [a.text for a in answers]
    blocks = {(a.json()["block_number"], a.json()["block_hash"]) for a in answers}
    assert len(blocks) <= 2  # the head pin is shared for its TTL
    ids = {a.json()["id"] for a in answers}
    assert len(ids) == 16
    listed = {d["id"] for d in player.get("/decks").json()}
    assert ids <= listed
