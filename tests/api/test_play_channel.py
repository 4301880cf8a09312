"""The play channel (`/matches/{id}/play`, a WebSocket) on a live server: moves sent on it are
the HTTP route's moves, the opponent is pushed each change as its seat sees it, and whatever a
client sends gets a problem+json naming the field or limit (or a close code saying why) without
closing the channel for a refused move or crashing anything."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from api.routes.play import MAX_REFUSALS
from ledger.chain.deployment import Deployment
from ledger.client.playchannel import ChannelError, PlayChannel, channel_url
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, start_duel
from tests.api.helpers import Player, sign_in, signed_move

pytestmark = pytest.mark.chain


def _raw(client: httpx.Client, match_id: str, token: str | None) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return connect(
        channel_url(str(client.base_url), match_id),
        additional_headers=headers,
        compression=None,
        max_size=None,
        legacy=True,
    )


def _next(sock: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(sock.recv(15))
    return message


def _closed(sock: ClientConnection) -> ConnectionClosed:
    with pytest.raises(ConnectionClosed) as closed:
        sock.recv(15)
    return closed.value


@pytest.fixture
def duel(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> tuple[dict[int, Player], str]:
    """Two wallets in a started MetaX match."""
    a, b, match_id, _ = start_duel(client, anvil, deployment, "metax")
    return {0: a, 1: b}, match_id


def test_moves_on_the_channel_are_answered_and_pushed_to_the_opponent(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    players, match_id = duel
    url = str(client.base_url)
    channels = {s: PlayChannel(url, match_id, p.token) for s, p in players.items()}
    try:
        first = {s: c.first for s, c in channels.items()}
        turn, version = first[0]["current_player"], first[0]["version"]
        head = first[0]["head_hash"]
        assert first[turn]["your_turn"] and first[turn]["legal_actions"]
        assert not first[1 - turn]["your_turn"] and first[1 - turn]["legal_actions"] == []
        legal = channels[turn].until(version)["legal_actions"]
        for k in range(12):
            body = signed_move(players[turn], match_id, legal[0]["action"], version, head)
            channels[turn].sock.send(json.dumps({"type": "move", "ref": k, **body}))
            answer = json.loads(channels[turn].sock.recv(15))  # its answer, the ref echoed
            assert answer["type"] == "applied" and answer["ref"] == k, answer
            assert answer["version"] == version + 1
            for entry in answer["applied"]:
                players[turn].sessions[match_id].check(entry)
            update = channels[1 - turn].until(answer["version"])
            assert update["type"] == "update" and update["seat"] == 1 - turn
            assert [e["index"] for e in update["applied"]] == [
                e["index"] for e in answer["applied"]
            ]
            assert [e["entry_hash"] for e in update["applied"]] == [
                e["entry_hash"] for e in answer["applied"]
            ]
            version, head = answer["version"], answer["head_hash"]
            if answer["status"] != "active":
                return
            turn = answer["current_player"]
            legal = answer["legal_actions"] if answer["your_turn"] else update["legal_actions"]
            assert legal, "the seat to act is told its legal actions"
        # the HTTP route and the channel tell the same log
        log = players[0].get(f"/matches/{match_id}/actions", params={"limit": 1000}).json()
        assert [e["index"] for e in log] == list(range(version))
    finally:
        for channel in channels.values():
            channel.close()


def test_a_stale_move_on_the_channel_is_a_409_and_the_channel_goes_on(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    players, match_id = duel
    channel = PlayChannel(str(client.base_url), match_id, players[0].token)
    try:
        first = channel.first
        mover = first["current_player"]
        channel.close()
        channel = PlayChannel(str(client.base_url), match_id, players[mover].token)
        legal = channel.first["legal_actions"]
        body = signed_move(
            players[mover], match_id, legal[0]["action"], first["version"], first["head_hash"]
        )
        stale = {**body, "version": first["version"] + 5}
        with pytest.raises(ChannelError) as refused:
            channel.move(stale)
        assert refused.value.status_code == 409, refused.value.body
        out = channel.move(body)  # still open: the right move applies
        assert out["version"] == first["version"] + 1
    finally:
        channel.close()


HOSTILE: list[tuple[str, Any, int, str]] = [
    ("not JSON", "{not json", 422, ""),
    ("deep nesting", "[" * 200 + "]" * 200, 422, "max_json_depth"),
    ("a list, not an object", "[1, 2]", 422, "message"),
    ("a binary frame", b'{"type": "move"}', 422, "message"),
    ("an unknown type", '{"type": "chat", "text": "hi"}', 422, "type"),
    ("an odd ref", '{"ref": {"a": 1}, "action": ["pass"]}', 422, "ref"),
    (
        "a huge integer",
        '{"action": ["pass"], "salt": "0x'
        + "0" * 64
        + '", "signature": "0x'
        + "0" * 130
        + '", "version": 123456789012345678901234567890}',
        422,
        "version",
    ),
    ("a lone surrogate", '{"action": ["\\ud800"], "salt": "0x00", "signature": "0x00"}', 422, ""),
    ("no signature", '{"action": ["pass"], "version": 0}', 422, "signature"),
    (
        "over the body limit",
        '{"action": ["' + "x" * (1_048_576 + 10) + '"]}',
        413,
        "max_body_bytes",
    ),
]


@pytest.mark.parametrize("what,message,status,names", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_messages_get_a_problem_naming_the_limit_and_the_channel_stays_open(
    client: httpx.Client,
    duel: tuple[dict[int, Player], str],
    what: str,
    message: Any,
    status: int,
    names: str,
) -> None:
    players, match_id = duel
    sock = _raw(client, match_id, players[0].token)
    try:
        hello = _next(sock)
        assert hello["type"] == "update"
        sock.send(message)
        refused = _next(sock)
        assert refused["type"] == "error", refused
        problem = refused["problem"]
        assert problem["status"] == status, problem
        assert names in json.dumps(problem), problem
        assert problem["type"].startswith("https://metaledger.dev/problems/")
        sock.send(json.dumps({"type": "move", "ref": "after", "action": ["pass"]}))
        again = _next(sock)  # still serving: the next message is answered
        assert again["type"] == "error" and again["ref"] == "after"
    finally:
        sock.close()


def test_a_frame_over_the_frame_limit_closes_the_channel_with_1009(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    players, match_id = duel
    sock = _raw(client, match_id, players[0].token)
    _next(sock)
    sock.send("x" * (2 * 1_048_576 + 1))
    closed = _closed(sock)
    assert closed.rcvd is not None and closed.rcvd.code == 1009


def test_refused_messages_in_a_row_close_the_channel(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    players, match_id = duel
    sock = _raw(client, match_id, players[0].token)
    _next(sock)
    for k in range(MAX_REFUSALS):
        sock.send("{}")
        assert _next(sock)["problem"]["status"] == 422, k
    closed = _closed(sock)
    assert closed.rcvd is not None and closed.rcvd.code == 1008
    assert f"{MAX_REFUSALS} refused" in closed.rcvd.reason


def test_the_token_may_come_as_the_first_message(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    players, match_id = duel
    sock = _raw(client, match_id, None)
    sock.send(json.dumps({"token": players[1].token, "since": 0}))
    hello = _next(sock)
    assert hello["type"] == "update" and hello["seat"] == 1
    assert hello["applied"] == [] and hello["version"] == 0
    sock.close()


@pytest.mark.parametrize(
    "case,status",
    [("no session", 401), ("not a player", 403), ("bad id", 422), ("no such match", 404)],
)
def test_a_refused_session_or_match_is_a_problem_then_close_1008(
    client: httpx.Client, duel: tuple[dict[int, Player], str], case: str, status: int
) -> None:
    players, match_id = duel
    token: str | None = players[0].token
    if case == "not a player":
        token = sign_in(client, PLAYER_KEYS[2]).token
    if case == "bad id":
        match_id = "0xNOPE"
    if case == "no such match":
        match_id = "0x" + "ab" * 32
    sock = _raw(client, match_id, None if case == "no session" else token)
    if case == "no session":
        sock.send(json.dumps({"token": "not-a-session"}))
    refused = _next(sock)
    assert refused["type"] == "error" and refused["problem"]["status"] == status, refused
    closed = _closed(sock)
    assert closed.rcvd is not None and closed.rcvd.code == 1008


def test_messages_sent_at_once_are_all_answered_in_order(
    client: httpx.Client, duel: tuple[dict[int, Player], str]
) -> None:
    """More messages than the server queues before it pauses reading the connection
    (`api.server.WS_QUEUE_HIGH_WATER`): reading resumes as the app takes them, none is lost."""
    from api.server import WS_QUEUE_HIGH_WATER

    players, match_id = duel
    sock = _raw(client, match_id, players[0].token)
    _next(sock)
    count = MAX_REFUSALS - 1
    assert count > WS_QUEUE_HIGH_WATER
    for k in range(count):
        sock.send(json.dumps({"ref": k, "action": ["pass"]}))
    refs = [_next(sock)["ref"] for _ in range(count)]
    assert refs == list(range(count))
    sock.close()
