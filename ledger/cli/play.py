"""`metaledger play ...`: sign in with a dev key wallet and play a bot match through the API."""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx
import typer

from ledger.cli.options import DataDir, use_data_dir
from ledger.errors import ConfigurationError, MetaLedgerError, ServiceUnavailable

app = typer.Typer(no_args_is_help=True)


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

        from ledger.siwe import build_message

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

    def play_to_end(
        self, match_id: str, max_actions: int = 100_000, on_action: Any = None
    ) -> tuple[dict[str, Any], int]:
        """Play uniformly random legal actions until the match ends; returns (match, actions sent)."""
        view = self.call("GET", f"/matches/{match_id}/view")
        legal, version, status = (
            view["legal_actions"],
            view["match"]["version"],
            view["match"]["status"],
        )
        sent = 0
        while status == "active" and sent < max_actions:
            if not legal:
                view = self.call("GET", f"/matches/{match_id}/view")
                legal, version, status = (
                    view["legal_actions"],
                    view["match"]["version"],
                    view["match"]["status"],
                )
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
        return dict(self.call("GET", f"/matches/{match_id}")), sent


def play(
    api: str = typer.Option(
        None, help="the API's base URL (default: the running local stack's, from its data dir)"
    ),
    key: str = typer.Option(..., help="the wallet's private key (dev keys: see `metaledger run`)"),
    game: str = typer.Option("metax", help="metax, metamasters or metaversus"),
    bot: str = typer.Option("greedy", help="the operator's bot: random or greedy"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="print every action"),
    data_dir: DataDir = None,
) -> None:
    """Sign in with a wallet, register a starter deck it owns, and play a bot match through the API."""
    from ledger import signing

    if not key.startswith("0x") or len(key) != 66:
        raise ConfigurationError("--key must be a 0x-prefixed 32-byte private key")
    if api is None:
        from ledger.settings import get_settings
        from ledger.stackinfo import find_stack

        use_data_dir(data_dir)
        api = find_stack(get_settings()).api_url
    with httpx.Client(base_url=api, timeout=60) as http:
        player = ApiPlayer(http, key)
        typer.echo(f"signed in as {player.sign_in()}")
        deck = player.pick_deck(game)
        match = player.start_bot_match(game, deck, bot)
        typer.echo(
            f"match {match['id']} ({game} vs the {bot} bot) started; ownership pinned at block {match['ownership_block']}"
        )

        def show(choice: dict[str, Any], out: dict[str, Any]) -> None:
            if verbose:
                typer.echo(f"  you: {choice['label'] or choice['action']}")
                for a in out["applied"][1:]:
                    typer.echo(f"  bot: {a['label'] or a['action']}")

        final, sent = player.play_to_end(match["id"], on_action=show)
        if final["status"] != "finished":
            raise ConfigurationError(f"the match did not finish (status {final['status']})")
        seat = final["your_seat"]
        outcome = (
            "draw"
            if final["winner_seat"] is None
            else ("you won" if final["winner_seat"] == seat else "the bot won")
        )
        typer.echo(
            f"match over after {final['version']} actions ({sent} yours): {outcome} ({final['end_reason']})"
        )
        result = player.call("GET", f"/matches/{match['id']}/result")
        struct = signing.MatchResult.from_message(result["typed_data"]["message"])
        signer = signing.recover_result_signer(
            struct, result["signature"], result["chain_id"], result["verifying_contract"]
        )
        typer.echo(f"signed result: digest {result['digest']}")
        typer.echo(f"  signature {result['signature']}")
        typer.echo(f"  recovers to {signer} (reported signer {result['signer']})")
