"""Two API processes (`python -m api`, the command the stack runs) on one database and one
broker: a human-vs-human match whose requests alternate between them, live updates of a move
made on one process streamed by the other, resuming a stream, the per-process stream cap."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.bench.apistack import Server
from ledger.chain.deployment import Deployment
from ledger.client.playchannel import PlayChannel
from ledger.db.migrations import upgrade
from ledger.devstack.anvil import AnvilNode
from ledger.devstack.ports import free_port
from ledger.settings import child_environment
from tests.api.conftest import PLAYER_KEYS, own_starter_deck
from tests.api.helpers import Player, commit_and_reveal, send_move, sign_in, signed_move

pytestmark = pytest.mark.chain

#: a process answers /healthz before the anchoring worker beats (503: degraded)
STATUSES = (200, 503)


def _api(tmp: Path, name: str, **settings: str) -> Server:
    """`python -m api` on a free port with the given settings, its log in `tmp`."""
    port = free_port()
    env = child_environment(api_port=str(port), **settings)
    return Server(
        name, [sys.executable, "-m", "api"], env, f"http://127.0.0.1:{port}", tmp / f"{name}.log"
    )


@pytest.fixture
def api_settings(
    evm_snapshot: AnvilNode,
    database_url: str,
    deployment_file: Path,
    broker_url: str,
    tmp_path: Path,
) -> dict[str, str]:
    """The settings of an API process on this test's chain, database (migrated) and broker."""
    upgrade(database_url)
    return {
        "rpc_url": evm_snapshot.rpc_url,
        "database_url": database_url,
        "deployment_file": str(deployment_file),
        "data_dir": str(tmp_path),
        "broker_url": broker_url,
        "siwe_domain": "testserver",
        "chain_head_ttl_seconds": "0",
        "events_keepalive_seconds": "1",
        "api_access_log": "false",
    }


@pytest.fixture
def two_apis(api_settings: dict[str, str], tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    """Processes A and B sharing the database, the chain and the broker."""
    procs = [_api(tmp_path, "api-a", **api_settings), _api(tmp_path, "api-b", **api_settings)]
    try:
        yield procs[0].wait(STATUSES), procs[1].wait(STATUSES)
    finally:
        for p in procs:
            p.stop()


def _players(apis: tuple[Server, Server], anvil: AnvilNode, deployment: Deployment) -> Any:
    """Two signed-in players with a registered MetaX starter deck each, and an HTTP client of
    each process (the session tokens work on both: sessions live in the database)."""
    clients = [
        httpx.Client(base_url=a.url, timeout=60, headers={"Host": "testserver"}) for a in apis
    ]
    players = [sign_in(clients[0], PLAYER_KEYS[k]) for k in range(2)]
    decks = [own_starter_deck(anvil, deployment, p, "metax", k) for k, p in enumerate(players)]
    return clients, players, decks


def _on(player: Player, client: httpx.Client) -> Player:
    """The same player (token, session keys) talking to another process."""
    return Player(client, player.key, player.token, player.secrets, player.sessions)


def _match_on_both(
    apis: tuple[Server, Server], anvil: AnvilNode, deployment: Deployment
) -> tuple[list[httpx.Client], list[Player], dict[str, Any]]:
    """A client of each process and the two players of a started match, the match."""
    clients, players, decks = _players(apis, anvil, deployment)
    return clients, players, _new_match(players, decks)


def _position(match: dict[str, Any]) -> tuple[str, int, int, str]:
    """A match's id, version, player to move and head hash."""
    return match["id"], match["version"], match["current_player"], match["head_hash"]


def _new_match(players: list[Player], decks: list[dict[str, Any]]) -> dict[str, Any]:
    r = players[0].post(
        "/matches", {"game": "metax", "deck_id": decks[0]["id"], "opponent": "open"}
    )
    assert r.status_code == 201, r.text
    match_id = r.json()["id"]
    r = players[1].post(f"/matches/{match_id}/join", {"deck_id": decks[1]["id"]})
    assert r.status_code == 200, r.text
    return commit_and_reveal(players, match_id)


def test_a_match_whose_moves_alternate_between_two_processes(
    two_apis: tuple[Server, Server], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    clients, players, match = _match_on_both(two_apis, evm_snapshot, deployment)
    match_id, version, turn, head = _position(match)
    assert match["status"] == "active"
    moves = 0
    while moves < 60 and match["status"] == "active":
        # every request goes to the other process than the one before
        client = clients[moves % 2]
        me = _on(players[turn], client)
        legal = me.get(f"/matches/{match_id}/legal-actions").json()
        out = send_move(me, match_id, legal[0]["action"], version, head)
        assert out["version"] == version + 1
        version, turn, moves = out["version"], out["current_player"], moves + 1
        head, match["status"] = out["head_hash"], out["status"]
        # the stale version is refused by the other process too (optimistic concurrency)
        late = _on(players[0], clients[(moves + 1) % 2])
        body = signed_move(late, match_id, legal[0]["action"], version - 1, head)
        assert late.post(f"/matches/{match_id}/actions", body).status_code == 409
    logs = [_on(players[0], c).get(f"/matches/{match_id}/actions", params={"limit": 1000}).json()
            for c in clients]  # fmt: skip
    assert logs[0] == logs[1] and [a["index"] for a in logs[0]] == list(range(moves))
    for c in clients:
        c.close()


def _refused(response: httpx.Response, slug: str) -> dict[str, Any]:
    assert response.status_code == 409, response.text
    problem: dict[str, Any] = response.json()
    assert problem["type"].endswith("/" + slug), problem
    return problem


def test_a_process_holding_an_old_row_of_the_match_refuses_a_stale_move(
    two_apis: tuple[Server, Server], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    """Process A answers a move and keeps the match's row at the new version (it then skips
    the read); B applies the next move. The same next move, sent to A at the version A holds,
    is checked against A's row (signature, turn) and refused by the version-guarded write: 409
    stale-turn naming the version now, nothing appended; A then serves the match as it is."""
    clients, players, match = _match_on_both(two_apis, evm_snapshot, deployment)
    match_id, version, turn, head = _position(match)
    on_a = _on(players[turn], clients[0])
    legal = on_a.get(f"/matches/{match_id}/legal-actions").json()
    out = send_move(on_a, match_id, legal[0]["action"], version, head)  # A holds this version
    match_id, version, turn, head = _position({"id": match_id, **out})
    on_b = _on(players[turn], clients[1])
    legal = on_b.get(f"/matches/{match_id}/legal-actions").json()
    body = signed_move(on_b, match_id, legal[0]["action"], version, head)
    applied = send_move(on_b, match_id, legal[0]["action"], version, head)
    on_a = _on(players[turn], clients[0])
    stale = _refused(on_a.post(f"/matches/{match_id}/actions", body), "stale-turn")
    assert stale["version"] == applied["version"] == version + 1
    log = on_a.get(f"/matches/{match_id}/actions", params={"limit": 1000}).json()
    assert [a["index"] for a in log] == list(range(version + 1))
    if applied["status"] == "active":  # A reads the match again and goes on from there
        mover = _on(players[applied["current_player"]], clients[0])
        legal = mover.get(f"/matches/{match_id}/legal-actions").json()
        nxt = send_move(
            mover, match_id, legal[0]["action"], applied["version"], applied["head_hash"]
        )
        assert nxt["version"] == version + 2
    for c in clients:
        c.close()


def test_a_process_holding_a_row_of_a_match_ended_elsewhere_refuses_the_move(
    two_apis: tuple[Server, Server], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    """A holds the match's row after a move; the opponent resigns through B; the mover's next
    move, sent to A at that version, is refused as the match is over (409 match-not-active,
    finished), not as a stale turn, and the transcript ends with the resignation."""
    clients, players, match = _match_on_both(two_apis, evm_snapshot, deployment)
    match_id, version, turn, head = _position(match)
    on_a = _on(players[turn], clients[0])
    legal = on_a.get(f"/matches/{match_id}/legal-actions").json()
    out = send_move(on_a, match_id, legal[0]["action"], version, head)
    match_id, version, turn, head = _position({"id": match_id, **out})
    assert out["status"] == "active"
    mover = _on(players[turn], clients[0])
    legal = mover.get(f"/matches/{match_id}/legal-actions").json()
    body = signed_move(mover, match_id, legal[0]["action"], version, head)
    resigner = _on(players[1 - turn], clients[1])
    resignation = resigner.sessions[match_id].resignation(version, head)
    r = resigner.post(f"/matches/{match_id}/resign", resignation)
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    ended = _refused(mover.post(f"/matches/{match_id}/actions", body), "match-not-active")
    assert ended["status_now"] == "finished"
    assert mover.get(f"/matches/{match_id}").json()["version"] == version
    for c in clients:
        c.close()


class _Stream:
    """A server-sent-event stream read in a thread: its events and comments as they arrive."""

    def __init__(self, url: str, headers: dict[str, str], params: dict[str, str] | None = None):
        self.events: list[dict[str, str]] = []
        self.comments: list[str] = []
        self.status: int | None = None
        self.body = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url, headers, params), daemon=True)
        self._thread.start()

    def _run(self, url: str, headers: dict[str, str], params: dict[str, str] | None) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(30, read=60)) as http,
            http.stream("GET", url, headers=headers, params=params) as response,
        ):
            self.status = response.status_code
            if response.status_code != 200:
                self.body = response.read().decode()
                return
            event: dict[str, str] = {}
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith(":"):
                    self.comments.append(line)
                elif line == "":
                    if "data" in event:
                        self.events.append(event)
                    event = {}
                else:
                    key, _, value = line.partition(": ")
                    event[key] = value

    def wait_for(self, predicate: Any, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < deadline, (self.status, self.body, self.events, self.comments)
            time.sleep(0.05)

    def close(self) -> None:
        """Stop reading (at the next line: a keep-alive comment at the latest) and wait."""
        self._stop.set()
        self._thread.join(30)


def test_a_move_on_one_process_reaches_a_stream_on_the_other(
    two_apis: tuple[Server, Server], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    clients, players, match = _match_on_both(two_apis, evm_snapshot, deployment)
    match_id, version, turn, head = _position(match)
    _a, b = two_apis
    stream = _Stream(
        f"{b.url}/matches/{match_id}/events", {**players[1].headers, "Host": "testserver"}
    )
    stream.wait_for(lambda: stream.status == 200 and stream.comments)
    mover = _on(players[turn], clients[0])
    legal = mover.get(f"/matches/{match_id}/legal-actions").json()
    out = send_move(mover, match_id, legal[0]["action"], version, head)
    stream.wait_for(lambda: len(stream.events) >= 1, timeout=10)
    first = stream.events[0]
    assert first["event"] == "action" and first["id"] == str(version)
    # the same entry the actions read returns to that viewer
    log = _on(players[1], clients[1]).get(f"/matches/{match_id}/actions").json()
    assert json.loads(first["data"]) == log[version]
    # keep-alive comments while nothing happens
    seen = len(stream.comments)
    stream.wait_for(lambda: len(stream.comments) > seen, timeout=5)
    assert any("keep-alive" in c for c in stream.comments)
    stream.close()

    # resume: Last-Event-ID of the entry seen -> only what came after it; ?token= works too
    if out["your_turn"]:
        send_move(mover, match_id, out["legal_actions"][0]["action"], version + 1, out["head_hash"])
    expected = len(_on(players[1], clients[1]).get(f"/matches/{match_id}/actions").json())
    resumed = _Stream(
        f"{b.url}/matches/{match_id}/events",
        {"Last-Event-ID": str(version), "Host": "testserver"},
        {"token": players[1].token},
    )
    resumed.wait_for(lambda: resumed.status is not None)
    if expected > version + 1:
        resumed.wait_for(lambda: len(resumed.events) >= expected - version - 1)
        assert [e["id"] for e in resumed.events] == [str(i) for i in range(version + 1, expected)]
    else:
        resumed.wait_for(lambda: resumed.comments)
        assert resumed.events == []
    resumed.close()
    for c in clients:
        c.close()


def test_streams_refuse_strangers_and_respect_the_cap(
    evm_snapshot: AnvilNode,
    deployment: Deployment,
    api_settings: dict[str, str],
    tmp_path: Path,
) -> None:
    capped = {**api_settings, "events_max_streams": "1"}
    api = _api(tmp_path, "api-capped", **capped).wait(STATUSES)
    try:
        client = httpx.Client(base_url=api.url, timeout=60, headers={"Host": "testserver"})
        players = [sign_in(client, PLAYER_KEYS[k]) for k in range(3)]
        decks = [own_starter_deck(evm_snapshot, deployment, p, "metax", k)
                 for k, p in enumerate(players[:2])]  # fmt: skip
        match_id = _new_match(players[:2], decks)["id"]
        path = f"/matches/{match_id}/events"
        assert client.get(path).status_code == 401
        stranger = client.get(path, headers=players[2].headers)
        assert stranger.status_code == 403
        assert stranger.headers["content-type"].startswith("application/problem+json")
        held = _Stream(f"{api.url}{path}", {**players[0].headers, "Host": "testserver"})
        held.wait_for(lambda: held.status == 200 and held.comments)
        refused = client.get(path, headers=players[1].headers)
        assert refused.status_code == 503
        body = refused.json()
        assert body["limit"] == "events_max_streams" and body["max"] == 1
        held.close()
        client.close()
    finally:
        api.stop()


def test_a_match_played_on_play_channels_held_by_two_processes(
    two_apis: tuple[Server, Server], evm_snapshot: AnvilNode, deployment: Deployment
) -> None:
    """Seat 0 holds its play channel on process A, seat 1 on B. Each move goes on the mover's
    channel; the other seat learns the move, its turn and its legal actions from the update its
    own process pushes once the broker's news of the commit reaches it (read from the database
    there: nothing is handed over across processes). Both logs agree at the end."""
    clients, players, match = _match_on_both(two_apis, evm_snapshot, deployment)
    match_id, version, turn, head = _position(match)
    channels = [
        PlayChannel(api.url, match_id, p.token, timeout=15)
        for api, p in zip(two_apis, players, strict=True)
    ]
    try:
        legal = channels[turn].until(version)["legal_actions"]
        for _ in range(40):
            body = signed_move(players[turn], match_id, legal[0]["action"], version, head)
            out = channels[turn].move(body)
            for entry in out["applied"]:
                players[turn].sessions[match_id].check(entry)
            assert out["version"] == version + 1 and out["type"] == "applied"
            version, head = out["version"], out["head_hash"]
            other = channels[1 - turn].until(version)  # pushed by the other process
            assert other["version"] == version and other["head_hash"] == head
            assert [e["index"] for e in other["applied"]][-1] == version - 1
            if out["status"] != "active":
                break
            turn = out["current_player"]
            legal = out["legal_actions"] if out["your_turn"] else other["legal_actions"]
            assert legal and (out["your_turn"] or other["your_turn"])
    finally:
        for channel in channels:
            channel.close()
    logs = [_on(players[0], c).get(f"/matches/{match_id}/actions", params={"limit": 1000}).json()
            for c in clients]  # fmt: skip
    assert logs[0] == logs[1] and len(logs[0]) == version
    for c in clients:
        c.close()
