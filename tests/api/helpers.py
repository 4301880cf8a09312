"""Helpers for API tests: sign in with a dev key, register decks, play matches over HTTP."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_utils import keccak

from ledger.client.session import MatchSession
from ledger.protocol import siwe


@dataclass
class Player:
    """A wallet with a session on the API."""

    client: httpx.Client
    key: str
    token: str = ""
    secrets: dict[str, bytes] = field(default_factory=dict)
    sessions: dict[str, MatchSession] = field(default_factory=dict)

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


def open_session(player: Player, match_id: str) -> MatchSession:
    """A session key for `player`'s seat of the match (receipts expected from its `receipt_signer`)."""
    match = player.get(f"/matches/{match_id}").json()
    seat = next(s["seat"] for s in match["seats"] if s["address"] == player.address)
    session = MatchSession(player.key, match, seat, match["receipt_signer"])
    player.sessions[match_id] = session
    return session


def commit_body(player: Player, match_id: str, secret: bytes) -> dict[str, Any]:
    """The commit of `secret` with a seat authorization of a fresh session key."""
    session = open_session(player, match_id)
    return session.authorization("0x" + keccak(secret).hex())


def commit_and_reveal(players: list[Player], match_id: str) -> dict[str, Any]:
    """Every player commits (authorizing a session key), then every player reveals; returns the
    match after the last reveal."""
    for p in players:
        secret = secrets.token_bytes(32)
        p.secrets[match_id] = secret
        r = p.post(f"/matches/{match_id}/commit", commit_body(p, match_id, secret))
        assert r.status_code == 200, r.text
    out: dict[str, Any] = {}
    for p in players:
        r = p.post(f"/matches/{match_id}/reveal", {"secret": "0x" + p.secrets[match_id].hex()})
        assert r.status_code == 200, r.text
        out = r.json()
    return out


def signed_move(
    player: Player, match_id: str, action: list[Any], version: int, head: str
) -> dict[str, Any]:
    """The body of a move signed by `player`'s session key in this match."""
    return player.sessions[match_id].move(action, version, head)


def send_move(
    player: Player, match_id: str, action: list[Any], version: int, head: str
) -> dict[str, Any]:
    """Submit a signed move (asserting 200) and check the receipts of every entry it appended."""
    r = player.post(
        f"/matches/{match_id}/actions", signed_move(player, match_id, action, version, head)
    )
    assert r.status_code == 200, r.text
    out = dict(r.json())
    for entry in out["applied"]:
        player.sessions[match_id].check(entry)
    return out


def acknowledge(player: Player, match_id: str) -> dict[str, Any]:
    """Acknowledge the end of a finished match with the player's session key (asserting 200)."""
    finished = player.get(f"/matches/{match_id}").json()
    body = player.sessions[match_id].acknowledgement(finished)
    r = player.post(f"/matches/{match_id}/acknowledge", body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def play_out(players: dict[int, Player], match_id: str, max_moves: int = 5000) -> dict[str, Any]:
    """Play the first legal action (not a position change) for whoever's turn it is until the
    match ends (every move signed by its player's session key)."""
    m = players[0].get(f"/matches/{match_id}").json()
    seat, version, status, head = m["current_player"], m["version"], m["status"], m["head_hash"]
    legal: list[dict[str, Any]] = []
    for _ in range(max_moves):
        if status != "active":
            return dict(players[0].get(f"/matches/{match_id}").json())
        if not legal:
            view = players[seat].get(f"/matches/{match_id}/view").json()
            legal, version = view["legal_actions"], view["match"]["version"]
            head = view["match"]["head_hash"]
        assert legal, "the player to move has no legal action"
        # MetaMasters (ruleset 2) sets no limit on position changes: always taking the first
        # legal action would switch one Actor back and forth for ever
        move = next((m for m in legal if m["action"][0] != "position"), legal[0])
        out = send_move(players[seat], match_id, move["action"], version, head)
        legal, version, status, head = (
            out["legal_actions"], out["version"], out["status"], out["head_hash"]
        )  # fmt: skip
        if not out["your_turn"]:
            seat, legal = out["current_player"], []
    raise AssertionError("the match did not end")


def play_bot_match(player: Player, match_id: str, max_moves: int = 5000) -> dict[str, Any]:
    """Play against the bot using the legal actions each response returns."""
    view = player.get(f"/matches/{match_id}/view").json()
    legal = view["legal_actions"]
    version = view["match"]["version"]
    status = view["match"]["status"]
    head = view["match"]["head_hash"]
    for _ in range(max_moves):
        if status != "active":
            return dict(player.get(f"/matches/{match_id}").json())
        assert legal
        out = send_move(player, match_id, legal[-1]["action"], version, head)
        legal, version, status = out["legal_actions"], out["version"], out["status"]
        head = out["head_hash"]
    raise AssertionError("the match did not end")
