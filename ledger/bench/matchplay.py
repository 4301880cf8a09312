"""Closed-loop match clients of `metaledger bench api`: each client plays human-vs-human matches
for two signed-in wallets, choosing uniformly random legal moves, every move signed by its
player's session key (`ledger.client.session`) and every receipt the API returns checked.
Setup (create, join, the seat authorizations with the seed commits, reveals) goes through the
project's client. The moves go, as a player's client sends them, through each seat's play
channel (`human_loop`: a WebSocket per seat, the opponent's moves and the turn pushed to it),
or through the HTTP route with a legal-actions read when the turn passes (`human_loop_http`,
the load generator's lean keep-alive connections, one per seat). Either way the two seats of a
match may be served by different API processes."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def human_loop(
    base_url: str, pairs: list[tuple[Seat, Seat]], game: str
) -> Callable[[int, float, Tally, threading.Lock], None]:
    """A client of `pairs[k]`: start a match, open each seat's play channel, then play signed
    random legal moves on the channel of the seat to act (the other learns its turn and legal
    actions from the change pushed to it) until the match ends or the phase does (then
    resign). `done` counts moves the API applied; `requests` the messages sent and received."""

    def loop(k: int, stop_at: float, tally: Tally, lock: threading.Lock) -> None:
        seats = list(pairs[k])
        rng = random.Random(k)
        moves = errors = messages = 0
        while time.perf_counter() < stop_at:
            match = _start(seats, game)
            match_id = match["id"]
            sessions = [s.player.sessions[match_id] for s in seats]
            channels = [PlayChannel(base_url, match_id, s.token, opener=LeanSocket) for s in seats]
            try:
                version, head = match["version"], match["head_hash"]
                turn, status = match["current_player"], match["status"]
                legal: list[dict[str, Any]] | None = None
                while status == "active" and time.perf_counter() < stop_at:
                    channel = channels[turn]
                    if legal is None:
                        legal = channel.until(version)["legal_actions"]
                    assert legal
                    choice = legal[rng.randrange(len(legal))]["action"]
                    try:
                        out = channel.move(sessions[turn].move(choice, version, head))
                    except ChannelError:
                        errors += 1
                        break
                    for entry in out["applied"]:
                        sessions[turn].check(entry)
                    moves += 1
                    version, head = out["version"], out["head_hash"]
                    turn, status = out["current_player"], out["status"]
                    legal = out["legal_actions"] if out["your_turn"] else None
            finally:
                for channel in channels:
                    messages += channel.messages
                    channel.close()
            if status != "finished":
                seats[0].player.resign(match_id)
        with lock:
            tally.done += moves
            tally.errors += errors
            tally.requests += messages

    return loop


def human_loop_http(
    base_url: str, pairs: list[tuple[Seat, Seat]], game: str
) -> Callable[[int, float, Tally, threading.Lock], None]:
    """`human_loop` through the HTTP move route, with a legal-actions read when the turn
    passes (what a client without the play channel does at best)."""

    def loop(k: int, stop_at: float, tally: Tally, lock: threading.Lock) -> None:
        seats = list(pairs[k])
        clients = [JsonClient(base_url), JsonClient(base_url)]
        rng = random.Random(k)
        moves = errors = 0
        try:
            while time.perf_counter() < stop_at:
                match = _start(seats, game)
                match_id = match["id"]
                sessions = [s.player.sessions[match_id] for s in seats]
                version, head = match["version"], match["head_hash"]
                turn, status = match["current_player"], match["status"]
                legal: list[dict[str, Any]] | None = None
                while status == "active" and time.perf_counter() < stop_at:
                    client, token = clients[turn], seats[turn].token
                    if legal is None:
                        path = f"/matches/{match_id}/legal-actions"
                        legal = client.request("GET", path, token=token)
                    assert legal
                    choice = legal[rng.randrange(len(legal))]["action"]
                    body = sessions[turn].move(choice, version, head)
                    try:
                        out = client.request("POST", f"/matches/{match_id}/actions", body, token)
                    except HttpStatusError:
                        errors += 1
                        break
                    for entry in out["applied"]:
                        sessions[turn].check(entry)
                    moves += 1
                    version, head = out["version"], out["head_hash"]
                    turn, status = out["current_player"], out["status"]
                    legal = out["legal_actions"] if out["your_turn"] else None
                if status != "finished":
                    seats[0].player.resign(match_id)
        finally:
            for c in clients:
                c.close()
        with lock:
            tally.done += moves
            tally.errors += errors
            tally.requests += sum(c.requests for c in clients)

    return loop
