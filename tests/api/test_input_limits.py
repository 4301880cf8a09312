"""Nothing a client sends takes the API down: every limit of issue 11 over real HTTP (uvicorn
with the API's own protocol, as `metaledger api` serves it), each answered with problem+json
naming the limit, and the server still answering afterwards."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from tests.api.conftest import PLAYER_KEYS, LiveServer, own_starter_deck
from tests.api.helpers import Player, commit_body, sign_in

pytestmark = pytest.mark.chain


def _problem(response: httpx.Response, status: int, limit: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text[:500]
    assert response.headers["content-type"].startswith("application/problem+json")
    body = dict(response.json())
    assert body["status"] == status
    if limit is not None:
        assert body.get("limit") == limit, body
    return body


def _alive(client: httpx.Client) -> None:
    assert client.get("/games").status_code == 200


def _raw(server: LiveServer, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read the whole response (the server closes the connection)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def test_a_declared_10_mb_body_is_refused_before_it_is_sent(
    live_api: LiveServer, client: httpx.Client
) -> None:
    status, headers, body = _raw(
        live_api,
        b"POST /decks HTTP/1.1\r\nHost: testserver\r\nContent-Type: application/json\r\n"
        b"Content-Length: 10485760\r\n\r\n",
    )
    assert status == 413 and headers["content-type"].startswith("application/problem+json")
    problem = json.loads(body)
    assert problem["limit"] == "max_body_bytes" and problem["max"] == 1_048_576
    _alive(client)


def test_a_streamed_body_is_cut_off_at_the_limit(client: httpx.Client) -> None:
    sent = {"bytes": 0}

    def chunks() -> Iterator[bytes]:
        for _ in range(40):  # 40 x 64 KiB = 2.5 MiB, with no Content-Length (chunked)
            sent["bytes"] += 65536
            yield b"[" + b"0," * 32767 + b"0"

    _problem(client.post("/auth/verify", content=chunks()), 413, "max_body_bytes")
    _alive(client)


def test_100000_brackets_to_sign_in_are_refused_not_fatal(client: httpx.Client) -> None:
    body = _problem(
        client.post(
            "/auth/verify", content=b"[" * 100_000, headers={"Content-Type": "application/json"}
        ),
        422,
        "max_json_depth",
    )
    assert body["setting"] == "METALEDGER_MAX_JSON_DEPTH"
    _problem(client.post("/auth/verify", content=b'{"a":' * 50_000), 422, "max_json_depth")
    _alive(client)


def test_a_100_kb_authorization_header_gets_problem_json(client: httpx.Client) -> None:
    response = client.get("/auth/me", headers={"Authorization": "Bearer " + "x" * 100_000})
    body = _problem(response, 431, "max_header_bytes")
    assert body["setting"] == "METALEDGER_MAX_HEADER_BYTES"
    _alive(client)


def test_malformed_http_gets_problem_json(live_api: LiveServer, client: httpx.Client) -> None:
    status, headers, body = _raw(live_api, b"NOT HTTP AT ALL\r\n\r\n")
    assert status == 400 and headers["content-type"] == "application/problem+json"
    assert json.loads(body)["status"] == 400
    _alive(client)


@pytest.fixture
def player(client: httpx.Client) -> Player:
    return sign_in(client, PLAYER_KEYS[0])


def test_a_lone_surrogate_as_a_card_id_is_a_422(player: Player) -> None:
    def post_deck(raw: bytes) -> httpx.Response:
        headers = {**player.headers, "Content-Type": "application/json"}
        return player.client.post("/decks", content=raw, headers=headers)

    body = _problem(post_deck(b'{"game": "metax", "cards": {"\\ud800": 1}}'), 422, "unicode")
    assert body["field"] == '$.cards["\\ud800"]'
    _problem(post_deck(b'{"game": "\\udfff", "cards": {"x": 1}}'), 422, "unicode")


def test_since_beyond_64_bits_is_a_422(player: Player) -> None:
    match = "0x" + "ab" * 32
    body = _problem(player.get(f"/matches/{match}/actions?since=9223372036854775808"), 422)
    assert body["errors"][0]["loc"] == ["query", "since"]
    assert player.get(f"/matches/{match}/actions?since=9223372036854775807").status_code == 404


@pytest.mark.parametrize("copies", ["3", True, 3.0, None, [3]])
def test_copies_are_never_coerced(player: Player, copies: object) -> None:
    body = _problem(player.post("/decks", {"game": "metax", "cards": {"U92-JL": copies}}), 422)
    assert body["errors"][0]["loc"][:3] == ["body", "cards", "U92-JL"]


@pytest.mark.parametrize(
    ("value", "status", "limit"),
    [(2**63, 422, "int64"), (-(2**63) - 1, 422, "int64"), (float("nan"), 422, "json-numbers")],
)
def test_numbers_outside_64_bits_and_nan_are_refused(
    player: Player, value: float, status: int, limit: str
) -> None:
    content = json.dumps({"action": ["draw", value]}).encode()
    response = player.client.post(
        "/matches/0x" + "ab" * 32 + "/actions",
        content=content,
        headers={**player.headers, "Content-Type": "application/json"},
    )
    _problem(response, status, limit)


def test_nul_in_a_query_is_refused(player: Player) -> None:
    body = _problem(player.get("/matches", params={"game": "metax\x00"}), 422, "unicode")
    assert body["field"] == "game"


@pytest.fixture
def metamasters_deck(player: Player, anvil: AnvilNode, deployment: Deployment) -> str:
    return str(own_starter_deck(anvil, deployment, player, "metamasters")["id"])


def _bot_match(player: Player, deck_id: str, options: dict[str, Any]) -> httpx.Response:
    """POST /matches: a metamasters match against the bot with these options."""
    return player.post(
        "/matches",
        {"game": "metamasters", "deck_id": deck_id, "opponent": "bot", "options": options},
    )


@pytest.mark.parametrize(
    ("options", "limit_or_field"),
    [
        ({"tokens": 2**70}, "$.options.tokens"),
        ({"tokens": -1}, "options.tokens"),
        ({"tokens": 0}, "options.tokens"),
        ({"tokens": "x"}, "options.tokens"),
        ({"tokens": True}, "options.tokens"),
        ({"tokens": [3, 3, 3]}, "options.tokens"),
        ({"tokens": 101}, "options.tokens"),
        ({"first": 2}, "options.first"),
        ({"colour": "red"}, "options.colour"),
    ],
)
def test_bad_match_options_are_refused_at_create_naming_the_field(
    player: Player, metamasters_deck: str, options: dict[str, Any], limit_or_field: str
) -> None:
    body = _problem(
        _bot_match(player, metamasters_deck, options),
        422,
    )
    assert body["field"] == limit_or_field, body
    assert player.get("/matches").json() == []  # nothing was created, no copies held


def test_options_the_deck_cannot_meet_are_refused_at_create(
    player: Player, metamasters_deck: str
) -> None:
    body = _problem(
        _bot_match(player, metamasters_deck, {"tokens": 5}),
        422,
    )
    assert body["type"].endswith("/deck-rejected")
    assert any(v["rule"] == "metamasters.deck.tokens_agreed" for v in body["violations"])
    assert player.get("/matches").json() == []


def test_an_engine_refusal_at_the_start_cancels_the_match(
    player: Player, metamasters_deck: str
) -> None:
    # seat 0's deck has the 3 agreed Tokens; the bot's starter deck has 3, not the agreed 4
    created = _bot_match(player, metamasters_deck, {"tokens": [3, 4]})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    secret = b"\x07" * 32
    assert (
        player.post(
            f"/matches/{match_id}/commit", commit_body(player, match_id, secret)
        ).status_code
        == 200
    )
    body = _problem(
        player.post(f"/matches/{match_id}/reveal", {"secret": "0x" + secret.hex()}), 409
    )
    assert "cancelled" in body["detail"]
    match = player.get(f"/matches/{match_id}").json()
    assert match["status"] == "cancelled" and match["end_reason"] == "engine-refused"
