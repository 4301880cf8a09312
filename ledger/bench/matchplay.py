"""Closed-loop match clients of `metaledger bench api`: each client plays human-vs-human matches
for two signed-in wallets (one keep-alive connection per seat, so the two seats of a match may
be served by different API processes), choosing uniformly random legal moves."""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eth_utils import keccak

from ledger.bench.loadgen import HttpStatusError, JsonClient, Tally


@dataclass(frozen=True)
class Seat:
    """A signed-in wallet with a registered deck."""

    token: str
    deck_id: str


def _seed(client: JsonClient, match_id: str, seats: list[Seat]) -> dict[str, Any]:
    """Both seats commit, then both reveal; the match as the last reveal started it."""
    secrets_ = [secrets.token_bytes(32) for _ in seats]
    for seat, secret in zip(seats, secrets_, strict=True):
        commit = {"commit": "0x" + keccak(secret).hex()}
        client.request("POST", f"/matches/{match_id}/commit", commit, seat.token)
    match: dict[str, Any] = {}
    for seat, secret in zip(seats, secrets_, strict=True):
        body = {"secret": "0x" + secret.hex()}
        match = client.request("POST", f"/matches/{match_id}/reveal", body, seat.token)
    return match


def human_loop(
    base_url: str, pairs: list[tuple[Seat, Seat]], game: str
) -> Callable[[int, float, Tally, threading.Lock], None]:
    """A client of `pairs[k]`: create, join, seed, then play random legal moves until the match
    ends or the phase does (then resign). `done` counts moves the API applied."""

    def loop(k: int, stop_at: float, tally: Tally, lock: threading.Lock) -> None:
        seats = list(pairs[k])
        clients = [JsonClient(base_url), JsonClient(base_url)]
        rng = random.Random(k)
        moves = errors = 0
        try:
            while time.perf_counter() < stop_at:
                body = {"game": game, "deck_id": seats[0].deck_id, "opponent": "open"}
                match = clients[0].request("POST", "/matches", body, seats[0].token)
                match_id = match["id"]
                join = {"deck_id": seats[1].deck_id}
                clients[1].request("POST", f"/matches/{match_id}/join", join, seats[1].token)
                match = _seed(clients[0], match_id, seats)
                version, turn, status = match["version"], match["current_player"], match["status"]
                legal: list[dict[str, Any]] | None = None
                while status == "active" and time.perf_counter() < stop_at:
                    client, token = clients[turn], seats[turn].token
                    if legal is None:
                        path = f"/matches/{match_id}/legal-actions"
                        legal = client.request("GET", path, token=token)
                    assert legal
                    choice = legal[rng.randrange(len(legal))]["action"]
                    try:
                        out = client.request(
                            "POST",
                            f"/matches/{match_id}/actions",
                            {"action": choice, "version": version},
                            token,
                        )
                    except HttpStatusError:
                        errors += 1
                        break
                    moves += 1
                    version, turn, status = out["version"], out["current_player"], out["status"]
                    legal = out["legal_actions"] if out["your_turn"] else None
                if status != "finished":
                    clients[0].request("POST", f"/matches/{match_id}/resign", None, seats[0].token)
        finally:
            for c in clients:
                c.close()
        with lock:
            tally.done += moves
            tally.errors += errors
            tally.requests += sum(c.requests for c in clients)

    return loop
