"""Helpers for API tests: sign in with a dev key, register decks, play matches over HTTP."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_utils import keccak

from ledger import siwe


@dataclass
class Player:
    """A wallet with a session on the API."""

    client: httpx.Client
    key: str
    token: str = ""
    secrets: dict[str, bytes] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return str(Account.from_key(self.key).address)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, headers=self.headers, **kw)

    def post(self, path: str, json: Any = None, **kw: Any) -> Any:
        return self.client.post(path, json=json, headers=self.headers, **kw)


def signed_message(client: httpx.Client, key: str, **overrides: Any) -> tuple[str, str]:
    """A fresh nonce, an EIP-4361 message for `key`'s address (fields overridable), and its signature."""
    grant = client.post("/auth/nonce").json()
    fields = {"domain": grant["domain"], "chain_id": grant["chain_id"], "nonce": grant["nonce"]}
    fields.update(overrides)
    message = siwe.build_message(address=Account.from_key(key).address, **fields).text()
    signature = Account.sign_message(encode_defunct(text=message), key).signature.to_0x_hex()
    return message, signature


def sign_in(client: httpx.Client, key: str) -> Player:
    """Sign in with `key` and return the player."""
    message, signature = signed_message(client, key)
    response = client.post("/auth/verify", json={"message": message, "signature": signature})
    assert response.status_code == 200, response.text
    return Player(client, key, response.json()["token"])


def register_deck(player: Player, game: str, cards: dict[str, int]) -> dict[str, Any]:
    """POST /decks and return the commitment (asserting 201)."""
    response = player.post("/decks", {"game": game, "cards": cards})
    assert response.status_code == 201, response.text
    return dict(response.json())


def commit_and_reveal(players: list[Player], match_id: str) -> dict[str, Any]:
    """Every player commits, then every player reveals; returns the match after the last reveal."""
    for p in players:
        secret = secrets.token_bytes(32)
        p.secrets[match_id] = secret
        r = p.post(f"/matches/{match_id}/commit", {"commit": "0x" + keccak(secret).hex()})
        assert r.status_code == 200, r.text
    out: dict[str, Any] = {}
    for p in players:
        r = p.post(f"/matches/{match_id}/reveal", {"secret": "0x" + p.secrets[match_id].hex()})
        assert r.status_code == 200, r.text
        out = r.json()
    return out


def play_out(players: dict[int, Player], match_id: str, max_moves: int = 5000) -> dict[str, Any]:
    """Play the first legal action (not a position change) for the player to move, to the end."""
    m = players[0].get(f"/matches/{match_id}").json()
    seat, version, status = m["current_player"], m["version"], m["status"]
    legal: list[dict[str, Any]] = []
    for _ in range(max_moves):
        if status != "active":
            return dict(players[0].get(f"/matches/{match_id}").json())
        if not legal:
            view = players[seat].get(f"/matches/{match_id}/view").json()
            legal, version = view["legal_actions"], view["match"]["version"]
        assert legal, "the player to move has no legal action"
        # MetaMasters (ruleset 2) sets no limit on position changes: always taking the first
        # legal action would switch one Actor back and forth for ever
        move = next((m for m in legal if m["action"][0] != "position"), legal[0])
        r = players[seat].post(
            f"/matches/{match_id}/actions", {"action": move["action"], "version": version}
        )
        assert r.status_code == 200, r.text
        out = r.json()
        legal, version, status = out["legal_actions"], out["version"], out["status"]
        if not out["your_turn"]:
            seat, legal = out["current_player"], []
    raise AssertionError("the match did not end")


def play_bot_match(player: Player, match_id: str, max_moves: int = 5000) -> dict[str, Any]:
    """Play against the bot using the legal actions each response returns."""
    view = player.get(f"/matches/{match_id}/view").json()
    legal = view["legal_actions"]
    version = view["match"]["version"]
    status = view["match"]["status"]
    for _ in range(max_moves):
        if status != "active":
            return dict(player.get(f"/matches/{match_id}").json())
        assert legal
        r = player.post(
            f"/matches/{match_id}/actions", {"action": legal[-1]["action"], "version": version}
        )
        assert r.status_code == 200, r.text
        out = r.json()
        legal, version, status = out["legal_actions"], out["version"], out["status"]
    raise AssertionError("the match did not end")
