"""Closed-loop match clients of `metaledger bench api`: each client plays human-vs-human matches
for two signed-in wallets, choosing uniformly random legal moves, every move signed by its
player's session key (`ledger.client.session`) and every receipt the API returns checked.
Setup (create, join, the seat authorizations with the seed commits, reveals) goes through the
project's client. The moves go, as a player's client sends them, through each seat's play
channel (a WebSocket per seat, the opponent's moves and the turn pushed to it; the load
generator's `LeanSocket`), or through the HTTP route with a legal-actions read when the turn
passes (the load generator's lean keep-alive connections, one per seat). Either way the two
seats of a match may be served by different API processes."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ledger.bench.loadgen import HttpStatusError, JsonClient, LeanSocket, Tally
from ledger.client.api import ApiPlayer
from ledger.client.playchannel import ChannelError, PlayChannel


@dataclass(frozen=True)
class Seat:
    """A signed-in wallet with a registered deck."""

    player: ApiPlayer
    deck_id: str

    @property
    def token(self) -> str:
        """The wallet's API session token."""
        return self.player.token


def _start(seats: list[Seat], game: str) -> dict[str, Any]:
    """Create, join, authorize both seats with their seed commits, reveal; the started match."""
    a, b = seats[0].player, seats[1].player
    created = a.call("POST", "/matches", {"game": game, "deck_id": seats[0].deck_id})
    joined = b.call("POST", f"/matches/{created['id']}/join", {"deck_id": seats[1].deck_id})
    secrets_ = [a.commit(joined), b.commit(joined)]
    a.reveal(joined["id"], secrets_[0])
    return b.reveal(joined["id"], secrets_[1])


class _Moves(Protocol):
    """How a client sends a seat's moves and learns its legal actions."""

    def legal(self, seat: int, match_id: str, version: int) -> list[dict[str, Any]]:
        """The seat's legal actions once the match is at `version` (its turn)."""

    def send(self, seat: int, match_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Send a signed move; its answer (an error if it was refused)."""


def _play(
    seats: list[Seat], match: dict[str, Any], moves: _Moves, rng: random.Random, stop_at: float
) -> tuple[int, str, bool]:
    """Signed random legal moves until the match ends, `stop_at`, or a move is refused; (moves
    applied, the match's status, whether a move was refused)."""
    match_id = match["id"]
    sessions = [s.player.sessions[match_id] for s in seats]
    version, head = match["version"], match["head_hash"]
    turn, status = match["current_player"], match["status"]
    legal: list[dict[str, Any]] | None = None
    played = 0
    while status == "active" and time.perf_counter() < stop_at:
        if legal is None:
            legal = moves.legal(turn, match_id, version)
        assert legal
        choice = legal[rng.randrange(len(legal))]["action"]
        try:
            out = moves.send(turn, match_id, sessions[turn].move(choice, version, head))
        except (ChannelError, HttpStatusError):
            return played, str(status), True
        for entry in out["applied"]:
            sessions[turn].check(entry)
        played += 1
        version, head = out["version"], out["head_hash"]
        turn, status = out["current_player"], out["status"]
        legal = out["legal_actions"] if out["your_turn"] else None
    return played, str(status), False


class _OnChannels:
    """Moves on each seat's play channel; the other seat's legal actions from its update."""

    def __init__(self, base_url: str, seats: list[Seat], match_id: str) -> None:
        self.channels = [PlayChannel(base_url, match_id, s.token, opener=LeanSocket) for s in seats]

    def legal(self, seat: int, match_id: str, version: int) -> list[dict[str, Any]]:
        """The legal actions of the update that brought the match to `version`."""
        return list(self.channels[seat].until(version)["legal_actions"])

    def send(self, seat: int, match_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """The move on the seat's channel."""
        return self.channels[seat].move(body)

    def close(self) -> int:
        """Close the channels; the messages they carried."""
        for channel in self.channels:
            channel.close()
        return sum(c.messages for c in self.channels)


class _ByHttp:
    """Moves by the HTTP route, a legal-actions read when the turn passes."""

    def __init__(self, base_url: str, seats: list[Seat]) -> None:
        self.seats = seats
        self.clients = [JsonClient(base_url), JsonClient(base_url)]

    def legal(self, seat: int, match_id: str, version: int) -> list[dict[str, Any]]:
        """`GET /matches/{id}/legal-actions`."""
        path = f"/matches/{match_id}/legal-actions"
        return list(self.clients[seat].request("GET", path, token=self.seats[seat].token))

    def send(self, seat: int, match_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """`POST /matches/{id}/actions`."""
        path = f"/matches/{match_id}/actions"
        return dict(self.clients[seat].request("POST", path, body, self.seats[seat].token))

    def close(self) -> int:
        """Close the connections; the requests they carried."""
        for client in self.clients:
            client.close()
        return sum(c.requests for c in self.clients)


def human_loop(
    base_url: str, pairs: list[tuple[Seat, Seat]], game: str, *, http: bool = False
) -> Callable[[int, float, Tally, threading.Lock], None]:
    """A client of `pairs[k]`: start a match, then play signed random legal moves until the
    match ends or the phase does (then resign). The moves go on each seat's play channel, the
    other seat learning its turn and legal actions from the change pushed to it; or (`http`)
    through the HTTP route with a legal-actions read when the turn passes (what a client
    without the channel does at best). `done` counts moves the API applied; `requests` the
    messages (channel) or requests (HTTP) of the moves."""

    def loop(k: int, stop_at: float, tally: Tally, lock: threading.Lock) -> None:
        seats = list(pairs[k])
        rng = random.Random(k)
        moves = errors = requests = 0
        by_http = _ByHttp(base_url, seats) if http else None
        try:
            while time.perf_counter() < stop_at:
                match = _start(seats, game)
                transport = by_http or _OnChannels(base_url, seats, match["id"])
                try:
                    played, status, refused = _play(seats, match, transport, rng, stop_at)
                finally:
                    if transport is not by_http:  # a match's channels end with it
                        requests += transport.close()
                moves, errors = moves + played, errors + refused
                if status != "finished":
                    seats[0].player.resign(match["id"])
        finally:
            if by_http is not None:
                requests += by_http.close()
        with lock:
            tally.done += moves
            tally.errors += errors
            tally.requests += requests

    return loop
