"""An HTTP client of the MetaLedger API for one wallet: EIP-4361 sign-in, decks, bot matches.
`metaledger play`, the benchmarks and the tests drive the API through it."""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

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

    def start_bot_match(
        self, game: str, deck: dict[str, int], bot: str, deck_id: str | None = None
    ) -> dict[str, Any]:
        """Register the deck (unless `deck_id` names a commitment of it), create a bot match,
        commit and reveal a seed secret."""
        from eth_utils import keccak

        if deck_id is None:
            deck_id = self.call("POST", "/decks", {"game": game, "cards": deck})["id"]
        match = self.call(
            "POST", "/matches", {"game": game, "deck_id": deck_id, "opponent": "bot", "bot": bot}
        )
        secret = secrets.token_bytes(32)
        self.call("POST", f"/matches/{match['id']}/commit", {"commit": "0x" + keccak(secret).hex()})
        return dict(
            self.call("POST", f"/matches/{match['id']}/reveal", {"secret": "0x" + secret.hex()})
        )

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

        def view() -> tuple[list[dict[str, Any]], int, str]:
            seen = self.call("GET", f"/matches/{match_id}/view")
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
            out = self.call(
                "POST",
                f"/matches/{match_id}/actions",
                {"action": choice["action"], "version": version},
            )
            sent += 1
            if on_action is not None:
                on_action(choice, out)
            legal, version, status = out["legal_actions"], out["version"], out["status"]
        return status, sent

    def play_to_end(
        self,
        match_id: str,
        max_actions: int = 100_000,
        on_action: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
    ) -> tuple[dict[str, Any], int]:
        """Play random legal actions until the match ends; returns (the match, actions sent)."""
        _status, sent = self.play(match_id, max_actions=max_actions, on_action=on_action)
        return dict(self.call("GET", f"/matches/{match_id}")), sent
