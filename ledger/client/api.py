"""An HTTP client of the MetaLedger API for one wallet: EIP-4361 sign-in, decks, signed matches
(a session key per match: `ledger.client.session`; moves by HTTP, or on the match's play
channel: `ledger.client.playchannel`). `metaledger play`, the benchmarks and the tests drive the
API through it."""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ledger.client.playchannel import PlayChannel
from ledger.client.session import MatchSession
from ledger.errors import MetaLedgerError, ServiceUnavailable


class ApiError(MetaLedgerError):
    """The API answered with a problem+json error."""

    def __init__(self, response: httpx.Response) -> None:
        body: Any = {}
        with contextlib.suppress(ValueError):
            body = response.json()
        if isinstance(body, dict) and "title" in body:
            detail = f"{body['title']} ({response.status_code}): {body.get('detail', '')}"
        else:  # not a problem+json body: whatever answers there is not a MetaLedger API
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            detail = (
                f"{response.request.url} answered HTTP {response.status_code} ({kind}): "
                "that is not a MetaLedger API"
            )
            body = {}
        super().__init__(detail)
        self.status_code = response.status_code
        self.body = body


@dataclass
class ApiPlayer:
    """A wallet talking to the API: sign-in, decks, matches (used by the CLI and the benchmark)."""

    http: httpx.Client
    key: str
    token: str = ""
    address: str = ""
    rng: Any = field(default_factory=lambda: secrets.SystemRandom())
    #: match id -> this wallet's session in it
    sessions: dict[str, MatchSession] = field(default_factory=dict)
    operator: str = ""

    def call(
        self, method: str, path: str, json: Any = None, ok: tuple[int, ...] = (200, 201, 204)
    ) -> Any:
        """One request with the session token; ApiError on a problem response."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            response = self.http.request(method, path, json=json, headers=headers)
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(
                f"the API at {self.http.base_url} does not answer: {exc}"
            ) from exc
        if response.status_code not in ok:
            raise ApiError(response)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise ApiError(response) from None

    def sign_in(self) -> str:
        """EIP-4361 sign-in with the wallet's key; returns the address."""
        from eth_account import Account
        from eth_account.messages import encode_defunct

        from ledger.protocol.siwe import build_message

        account = Account.from_key(self.key)
        grant = self.call("POST", "/auth/nonce")
        message = build_message(
            domain=grant["domain"],
            address=account.address,
            chain_id=grant["chain_id"],
            nonce=grant["nonce"],
            uri=grant["uri"],
        ).text()
        signature = Account.sign_message(
            encode_defunct(text=message), self.key
        ).signature.to_0x_hex()
        session = self.call("POST", "/auth/verify", {"message": message, "signature": signature})
        self.token, self.address = session["token"], session["address"]
        return self.address

    def pick_deck(self, game: str) -> dict[str, int]:
        """The first starter deck of `game` that the wallet's collection covers."""
        info = self.call("GET", f"/games/{game}")
        held = {
            c["card_id"]: c["balance"]
            for c in self.call("GET", f"/wallets/{self.address}/cards?game={game}")["cards"]
        }
        for deck in info["starter_decks"]:
            if all(held.get(card, 0) >= n for card, n in deck.items()):
                return dict(deck)
        return dict(info["starter_decks"][0])  # let the API say which cards are missing

    def commit(self, match: dict[str, Any]) -> bytes:
        """Open a session for this wallet's seat of `match` (its MatchOut) and commit a fresh
        seed secret with the seat authorization; returns the secret."""
        from eth_utils import keccak

        seat = next(s["seat"] for s in match["seats"] if s["address"] == self.address)
        self.operator = match["receipt_signer"]
        session = MatchSession(self.key, match, seat, self.operator)
        self.sessions[match["id"]] = session
        secret = secrets.token_bytes(32)
        body = session.authorization("0x" + keccak(secret).hex())
        self.call("POST", f"/matches/{match['id']}/commit", body)
        return secret

    def reveal(self, match_id: str, secret: bytes) -> dict[str, Any]:
        """Reveal the seed secret; returns the match."""
        return dict(
            self.call("POST", f"/matches/{match_id}/reveal", {"secret": "0x" + secret.hex()})
        )

    def start_bot_match(
        self, game: str, deck: dict[str, int], bot: str, deck_id: str | None = None
    ) -> dict[str, Any]:
        """Register the deck (unless `deck_id` names a commitment of it), create a bot match,
        commit (with the seat authorization) and reveal a seed secret."""
        if deck_id is None:
            deck_id = self.call("POST", "/decks", {"game": game, "cards": deck})["id"]
        match = self.call(
            "POST", "/matches", {"game": game, "deck_id": deck_id, "opponent": "bot", "bot": bot}
        )
        return self.reveal(match["id"], self.commit(match))

    def send(self, match_id: str, action: list[Any], version: int, head: str) -> dict[str, Any]:
        """Submit `action` signed by this wallet's session key; checks every receipt."""
        session = self.sessions[match_id]
        out = dict(
            self.call("POST", f"/matches/{match_id}/actions", session.move(action, version, head))
        )
        for entry in out["applied"]:
            session.check(entry)
        return out

    def resign(self, match_id: str) -> dict[str, Any]:
        """Resign (signed when the match is active; its receipt checked)."""
        match = self.call("GET", f"/matches/{match_id}")
        session = self.sessions.get(match_id)
        body = None
        if match["status"] == "active" and session is not None:
            body = session.resignation(match["entries"], match["head_hash"])
        out = dict(self.call("POST", f"/matches/{match_id}/resign", body))
        if body is not None and session is not None and out["forfeit_entry"] is not None:
            session.check(out["forfeit_entry"])
        return out

    def acknowledge(self, match_id: str) -> dict[str, Any]:
        """Sign the end of a finished match with the session key (MatchEnd)."""
        finished = self.call("GET", f"/matches/{match_id}")
        body = self.sessions[match_id].acknowledgement(finished)
        return dict(self.call("POST", f"/matches/{match_id}/acknowledge", body))

    def play(
        self,
        match_id: str,
        *,
        max_actions: int = 100_000,
        on_action: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
        stop_at: float | None = None,
    ) -> tuple[str, int]:
        """Play uniformly random legal actions while the match is active (at most `max_actions`,
        and until `time.perf_counter()` reaches `stop_at` when given); returns (status, actions
        sent). `on_action(choice, answer)` sees every submission."""

        head = ""

        def view() -> tuple[list[dict[str, Any]], int, str]:
            nonlocal head
            seen = self.call("GET", f"/matches/{match_id}/view")
            head = seen["match"]["head_hash"]
            return seen["legal_actions"], seen["match"]["version"], seen["match"]["status"]

        legal, version, status = view()
        sent = 0
        while status == "active" and sent < max_actions:
            if stop_at is not None and time.perf_counter() >= stop_at:
                break
            if not legal:  # the other seat's turn: look again
                legal, version, status = view()
                continue
            choice = legal[self.rng.randrange(len(legal))]
            out = self.send(match_id, choice["action"], version, head)
            sent += 1
            if on_action is not None:
                on_action(choice, out)
            legal, version, status = out["legal_actions"], out["version"], out["status"]
            head = out["head_hash"]
        return status, sent

    def play_on_channel(
        self,
        match_id: str,
        *,
        max_actions: int = 100_000,
        on_action: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    ) -> tuple[str, int]:
        """`play` on the match's play channel (`ledger.client.playchannel`): each move sent on
        it, the turn and legal actions pushed to it when the other seat has played; every
        entry's receipt checked, those appended before it connected (a bot's opening) too."""
        session = self.sessions[match_id]
        channel = PlayChannel(str(self.http.base_url), match_id, self.token, since=0)
        try:
            now = channel.update()
            for entry in now["applied"]:
                session.check(entry)
            legal, version, status = now["legal_actions"], now["version"], now["status"]
            head, sent = now["head_hash"], 0
            while status == "active" and sent < max_actions:
                if not legal:  # the other seat's turn: its move is pushed
                    now = channel.update()
                    for entry in now["applied"]:
                        session.check(entry)
                    legal, version, status = now["legal_actions"], now["version"], now["status"]
                    head = now["head_hash"]
                    continue
                choice = legal[self.rng.randrange(len(legal))]
                out = channel.move(session.move(choice["action"], version, head))
                for entry in out["applied"]:
                    session.check(entry)
                sent += 1
                if on_action is not None:
                    on_action(choice, out)
                legal, version, status = out["legal_actions"], out["version"], out["status"]
                head = out["head_hash"]
        finally:
            channel.close()
        return status, sent

    def play_to_end(
        self,
        match_id: str,
        max_actions: int = 100_000,
        on_action: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    ) -> tuple[dict[str, Any], int]:
        """Play random legal actions on the match's play channel until the match ends, then
        acknowledge it; returns (the match, actions sent)."""
        status, sent = self.play_on_channel(match_id, max_actions=max_actions, on_action=on_action)
        if status == "finished":
            return self.acknowledge(match_id), sent
        return dict(self.call("GET", f"/matches/{match_id}")), sent
