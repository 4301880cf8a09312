"""Copies held by a started match cannot be committed by another wallet they were sent to
(two wallets on a real Anvil): the 409 names the card and the match; free once it ends."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from engine import get_game
from ledger.catalogue.service import token_id
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, mint, transfer
from tests.api.helpers import Player, commit_and_reveal, commit_body, register_deck, sign_in

pytestmark = pytest.mark.chain
GAME = "metamasters"


def _two_wallets(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, a_more: int, b_more: int
) -> tuple[Player, Player, dict[str, int], str]:
    """Wallets A and B signed in, each holding the cards of starter deck 0 but `a_more` /
    `b_more` copies more (or fewer) of one of its cards. Returns (A, B, the deck, the card)."""
    game = get_game(GAME)
    deck = dict(game.starter_decks[0])
    needs = game.required_tokens(deck)
    card = sorted(needs)[0]
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    holdings = {
        wallet.address: {(GAME, c): n + (more if c == card else 0) for c, n in needs.items()}
        for wallet, more in ((a, a_more), (b, b_more))
    }
    mint(anvil, deployment, holdings)
    return a, b, deck, card


def _bot_match(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, extra: int
) -> tuple[Player, Player, str, dict[str, int], str]:
    """Wallet A holds starter deck 0 (plus `extra` copies of one of its cards) and plays it in
    a started bot match; wallet B holds the same deck but one copy of that card short.
    Returns (A, B, the match id, the deck, the card)."""
    a, b, deck, card = _two_wallets(client, anvil, deployment, extra, -1)
    commitment = register_deck(a, GAME, deck)
    created = a.post("/matches", {"game": GAME, "deck_id": commitment["id"], "opponent": "bot"})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    commit_and_reveal([a], match_id)
    assert a.get(f"/matches/{match_id}").json()["status"] == "active"
    return a, b, match_id, deck, card


def _resign(player: Player, match_id: str) -> None:
    m: dict[str, Any] = player.get(f"/matches/{match_id}").json()
    body = player.sessions[match_id].resignation(m["version"], m["head_hash"])
    r = player.post(f"/matches/{match_id}/resign", body)
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text


def test_copies_sent_from_a_live_match_cannot_be_committed_until_it_ends(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    a, b, match_id, deck, card = _bot_match(client, anvil, deployment, extra=0)
    transfer(anvil, deployment, PLAYER_KEYS[0], b.address, token_id(GAME, card), 1)
    refused = b.post("/decks", {"game": GAME, "cards": deck})
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["type"].endswith("/copies-committed")
    assert card in body["detail"] and match_id in body["detail"]
    (entry,) = body["cards"]
    assert entry["card"] == card and entry["held"] == entry["needed"]
    assert entry["held_by_matches"] == [{"match_id": match_id, "copies": 1}]
    # A's own copies stay committed too (A's balance is now one short)
    assert a.post("/decks", {"game": GAME, "cards": deck}).status_code == 409
    _resign(a, match_id)
    freed = b.post("/decks", {"game": GAME, "cards": deck})
    assert freed.status_code == 201, freed.text


def test_a_free_copy_sent_from_a_wallet_in_a_live_match_does_not_block(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    a, b, match_id, deck, card = _bot_match(client, anvil, deployment, extra=1)
    transfer(anvil, deployment, PLAYER_KEYS[0], b.address, token_id(GAME, card), 1)
    assert b.post("/decks", {"game": GAME, "cards": deck}).status_code == 201
    # the next copy A sends is one its match holds
    transfer(anvil, deployment, PLAYER_KEYS[0], b.address, token_id(GAME, card), 1)
    first = register_deck(b, GAME, deck)
    created = b.post("/matches", {"game": GAME, "deck_id": first["id"], "opponent": "bot"})
    assert created.status_code == 201, created.text
    started = commit_and_reveal([b], created.json()["id"])
    assert started["status"] == "active", started
    assert a.get(f"/matches/{match_id}").json()["status"] == "active"


def test_a_match_start_refuses_copies_another_live_match_holds(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    a, b, deck, card = _two_wallets(client, anvil, deployment, -1, 0)
    b_deck = register_deck(b, GAME, deck)  # B's deck is checked while B holds every copy
    transfer(anvil, deployment, PLAYER_KEYS[1], a.address, token_id(GAME, card), 1)
    a_deck = register_deck(a, GAME, deck)
    held = a.post("/matches", {"game": GAME, "deck_id": a_deck["id"], "opponent": "bot"})
    assert commit_and_reveal([a], held.json()["id"])["status"] == "active"
    transfer(anvil, deployment, PLAYER_KEYS[0], b.address, token_id(GAME, card), 1)
    created = b.post("/matches", {"game": GAME, "deck_id": b_deck["id"], "opponent": "bot"})
    assert created.status_code == 201, created.text  # the deck's own check saw B's copies
    match_id = created.json()["id"]
    b.secrets[match_id] = secrets.token_bytes(32)
    commit = b.post(f"/matches/{match_id}/commit", commit_body(b, match_id, b.secrets[match_id]))
    assert commit.status_code == 200, commit.text
    r = b.post(f"/matches/{match_id}/reveal", {"secret": "0x" + b.secrets[match_id].hex()})
    assert r.status_code == 409, r.text
    assert r.json()["type"].endswith("/copies-committed")
    assert held.json()["id"] in r.json()["detail"] and card in r.json()["detail"]
    gone = b.get(f"/matches/{match_id}").json()
    assert (gone["status"], gone["end_reason"]) == ("cancelled", "copies-committed")


def test_a_match_start_scans_other_matches_only_for_a_wallet_that_received_cards(
    client: httpx.Client,
    anvil: AnvilNode,
    deployment: Deployment,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hold scan of a start (every started seat of the game) runs only for a player who
    received one of the deck's cards since the oldest pin of a live match: a start costs the
    same however many matches of wallets that received nothing are live."""
    from ledger.decks import received

    scans: list[str] = []
    scan = received.started_holds

    def counted(*args: Any, **kwargs: Any) -> received.Holds:
        scans.append(args[1].name)
        return scan(*args, **kwargs)

    monkeypatch.setattr(received, "started_holds", counted)
    a, b, deck, card = _two_wallets(client, anvil, deployment, 1, 0)
    a_deck, b_deck = register_deck(a, GAME, deck), register_deck(b, GAME, deck)
    for player, commitment in ((a, a_deck), (b, b_deck)):
        body = {"game": GAME, "deck_id": commitment["id"], "opponent": "bot"}
        created = player.post("/matches", body)
        assert created.status_code == 201, created.text
        assert commit_and_reveal([player], created.json()["id"])["status"] == "active"
    assert scans == []  # B started while A's match was live and pinned: B had received nothing
    # A's spare copy (free of its match) reaches B; B's next start walks the transfers again
    transfer(anvil, deployment, PLAYER_KEYS[0], b.address, token_id(GAME, card), 1)
    # the same deck again needs the copies B's own live match holds: resign that one first
    _resign(b, b.get("/matches?status=mine").json()[0]["id"])
    created = b.post("/matches", {"game": GAME, "deck_id": b_deck["id"], "opponent": "bot"})
    assert created.status_code == 201, created.text
    assert commit_and_reveal([b], created.json()["id"])["status"] == "active"
    assert scans == [GAME]
