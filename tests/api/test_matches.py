"""Match rejections over HTTP: ownership at the pinned block, illegal actions, someone else's
match, out of turn, concurrent submissions, seeding order, resign and the turn timeout."""

from __future__ import annotations

import secrets
import threading
import time

import httpx
import pytest

from engine import get_game
from ledger.chain.deployment import Deployment
from ledger.devstack.anvil import AnvilNode
from ledger.protocol.tokenids import token_id
from tests.api.conftest import PLAYER_KEYS, mint, transfer
from tests.api.helpers import (
    Player,
    commit_and_reveal,
    commit_body,
    register_deck,
    sign_in,
    signed_move,
)

pytestmark = pytest.mark.chain
GAME = "metamasters"


def _needs(deck: dict[str, int]) -> dict[tuple[str, str], int]:
    return {(GAME, c): n for c, n in get_game(GAME).required_tokens(deck).items()}


def _two_players(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> tuple[Player, Player, str]:
    """Two players with decks in an open-then-joined match (seeding); returns the match id."""
    g = get_game(GAME)
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    decks = [dict(g.starter_decks[0]), dict(g.starter_decks[1])]
    mint(anvil, deployment, {a.address: _needs(decks[0]), b.address: _needs(decks[1])})
    d0, d1 = register_deck(a, GAME, decks[0]), register_deck(b, GAME, decks[1])
    match = a.post("/matches", {"game": GAME, "deck_id": d0["id"]}).json()
    assert b.post(f"/matches/{match['id']}/join", {"deck_id": d1["id"]}).status_code == 200
    return a, b, match["id"]


def _active(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> tuple[dict[int, Player], dict]:
    a, b, match_id = _two_players(client, anvil, deployment)
    started = commit_and_reveal([a, b], match_id)
    assert started["status"] == "active"
    return {0: a, 1: b}, started


def test_transfer_after_commitment_cancels_the_start(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    a, b, match_id = _two_players(client, anvil, deployment)
    for p in (a, b):
        p.secrets[match_id] = secrets.token_bytes(32)
        assert (
            p.post(
                f"/matches/{match_id}/commit", commit_body(p, match_id, p.secrets[match_id])
            ).status_code
            == 200
        )
    card = sorted(get_game(GAME).required_tokens(dict(get_game(GAME).starter_decks[1])))[0]
    transfer(
        anvil,
        deployment,
        PLAYER_KEYS[1],
        sign_in(client, PLAYER_KEYS[2]).address,
        token_id(GAME, card),
        1,
    )
    assert (
        a.post(
            f"/matches/{match_id}/reveal", {"secret": "0x" + a.secrets[match_id].hex()}
        ).status_code
        == 200
    )
    r = b.post(f"/matches/{match_id}/reveal", {"secret": "0x" + b.secrets[match_id].hex()})
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["type"].endswith("/ownership-changed")
    assert body["block_number"] > 0 and body["block_hash"].startswith("0x")
    (entry,) = body["cards"]
    assert (entry["seat"], entry["card"], entry["held"]) == (1, card, entry["needed"] - 1)
    assert a.get(f"/matches/{match_id}").json()["status"] == "cancelled"


def test_transfer_after_the_start_does_not_matter(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, started = _active(client, anvil, deployment)
    card = sorted(get_game(GAME).required_tokens(dict(get_game(GAME).starter_decks[0])))[0]
    transfer(anvil, deployment, PLAYER_KEYS[0], players[1].address, token_id(GAME, card), 1)
    resigner = players[started["current_player"]]
    body = resigner.sessions[started["id"]].resignation(started["version"], started["head_hash"])
    r = resigner.post(f"/matches/{started['id']}/resign", body)
    assert r.status_code == 200 and r.json()["status"] == "finished"
    resigner.sessions[started["id"]].check(r.json()["forfeit_entry"])
    result = players[0].get(f"/matches/{started['id']}/result").json()
    assert result["ownership_block"] == started["ownership_block"]
    assert result["winner"] == players[1 - started["current_player"]].address
    assert players[0].post(f"/matches/{started['id']}/resign").status_code == 409


def test_illegal_action_names_the_rule(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, m = _active(client, anvil, deployment)
    mover = players[m["current_player"]]
    r = mover.post(
        f"/matches/{m['id']}/actions",
        signed_move(mover, m["id"], ["no-such-action", 99], m["version"], m["head_hash"]),
    )
    assert r.status_code == 422, r.text
    assert r.json()["type"].endswith("/illegal-action") and r.json()["rule"]


def test_actions_in_someone_elses_match_are_forbidden(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, m = _active(client, anvil, deployment)
    stranger = sign_in(client, PLAYER_KEYS[2])
    legal = players[m["current_player"]].get(f"/matches/{m['id']}/legal-actions").json()
    body = signed_move(players[m["current_player"]], m["id"], legal[0]["action"], 0, m["head_hash"])
    r = stranger.post(f"/matches/{m['id']}/actions", body)
    assert r.status_code == 403 and r.json()["type"].endswith("/forbidden")
    assert stranger.get(f"/matches/{m['id']}/view").status_code == 403


def test_out_of_turn_is_refused(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, m = _active(client, anvil, deployment)
    mover = m["current_player"]
    legal = players[mover].get(f"/matches/{m['id']}/legal-actions").json()
    assert players[1 - mover].get(f"/matches/{m['id']}/legal-actions").json() == []
    body = signed_move(players[1 - mover], m["id"], legal[0]["action"], 0, m["head_hash"])
    r = players[1 - mover].post(f"/matches/{m['id']}/actions", body)
    assert r.status_code == 409 and r.json()["type"].endswith("/out-of-turn")


def test_two_concurrent_submissions_of_the_same_turn(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, m = _active(client, anvil, deployment)
    mover = players[m["current_player"]]
    legal = mover.get(f"/matches/{m['id']}/legal-actions").json()
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def submit(action: list) -> None:
        with httpx.Client(base_url=str(client.base_url), headers=mover.headers, timeout=30) as c:
            barrier.wait()
            codes.append(c.post(f"/matches/{m['id']}/actions", json=bodies[id(action)]).status_code)

    choices = [legal[i % len(legal)]["action"] for i in range(2)]
    bodies = {
        id(action): signed_move(mover, m["id"], action, m["version"], m["head_hash"])
        for action in choices
    }
    threads = [threading.Thread(target=submit, args=(action,)) for action in choices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200, 409], codes
    actions = mover.get(f"/matches/{m['id']}/actions").json()
    assert [a["index"] for a in actions] == list(range(len(actions)))
    assert sum(1 for a in actions if a["index"] == m["version"]) == 1
    # a stale version is refused too
    stale = mover.post(
        f"/matches/{m['id']}/actions",
        signed_move(mover, m["id"], legal[0]["action"], m["version"], m["head_hash"]),
    )
    assert stale.status_code == 409


def test_seeding_order_is_enforced(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    a, b, match_id = _two_players(client, anvil, deployment)
    secret = secrets.token_bytes(32)
    assert (
        a.post(f"/matches/{match_id}/commit", commit_body(a, match_id, secret)).status_code == 200
    )
    early = a.post(f"/matches/{match_id}/reveal", {"secret": "0x" + secret.hex()})
    assert early.status_code == 409 and early.json()["reason"] == "awaiting-commitments"
    assert (
        a.post(f"/matches/{match_id}/commit", commit_body(a, match_id, secret)).status_code == 409
    )
    b_secret = secrets.token_bytes(32)
    assert (
        b.post(f"/matches/{match_id}/commit", commit_body(b, match_id, b_secret)).status_code == 200
    )
    wrong = a.post(f"/matches/{match_id}/reveal", {"secret": "0x" + secrets.token_bytes(32).hex()})
    assert wrong.status_code == 422
    revealed = a.post(f"/matches/{match_id}/reveal", {"secret": "0x" + secret.hex()})
    assert revealed.status_code == 200 and revealed.json()["status"] == "seeding"
    again = a.post(f"/matches/{match_id}/reveal", {"secret": "0x" + secret.hex()})
    assert again.status_code == 409 and "already revealed" in again.json()["detail"]
    m = a.get(f"/matches/{match_id}").json()
    assert m["operator_secret"] is None and m["seed"] is None  # nothing disclosed before the start


@pytest.mark.parametrize("settings_overrides", [{"turn_timeout_seconds": 1}], indirect=True)
def test_idle_player_loses_on_timeout(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    players, m = _active(client, anvil, deployment)
    idle = m["current_player"]
    time.sleep(2.1)
    r = players[1 - idle].get(f"/matches/{m['id']}")
    assert r.json()["status"] == "finished" and r.json()["end_reason"] == "timeout"
    assert r.json()["winner_seat"] == 1 - idle
    result = players[0].get(f"/matches/{m['id']}/result").json()
    assert result["winner"] == players[1 - idle].address and result["end_reason"] == "timeout"
    late = players[idle].post(
        f"/matches/{m['id']}/actions", signed_move(players[idle], m["id"], ["x"], 0, m["head_hash"])
    )
    assert late.status_code == 409


def test_problem_json_for_unknown_routes_and_methods(client: httpx.Client) -> None:
    for response, status in (
        (client.get("/nope"), 404),
        (client.delete("/games"), 405),
        (client.get("/matches/0x" + "00" * 32 + "/result"), 404),
        (client.post("/auth/verify", json={"message": 1}), 422),
    ):
        assert response.status_code == status
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["status"] == status and "Traceback" not in response.text


def test_health_and_metrics(client: httpx.Client, deployment: Deployment) -> None:
    health = client.get("/healthz").json()  # no worker here: tests/api/test_health.py
    assert (
        health["chain_ok"] and health["database_ok"] and health["chain_id"] == deployment.chain_id
    )
    assert health["contracts"]["MatchLedger"] == deployment.match_ledger
    metrics = client.get("/metrics")
    assert metrics.status_code == 200 and "metaledger_http_requests_total" in metrics.text


def test_every_setup_answer_is_the_match_a_fresh_read_shows(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment
) -> None:
    """Create, join, the commits, the reveals and a resignation answer with the match as they
    left it (not read again): each answer is what GET /matches/{id} then shows its caller."""
    g = get_game(GAME)
    a, b = sign_in(client, PLAYER_KEYS[0]), sign_in(client, PLAYER_KEYS[1])
    decks = [dict(g.starter_decks[0]), dict(g.starter_decks[1])]
    mint(anvil, deployment, {a.address: _needs(decks[0]), b.address: _needs(decks[1])})
    d0, d1 = register_deck(a, GAME, decks[0]), register_deck(b, GAME, decks[1])

    def answered(player: Player, path: str, body: dict, status: int = 200) -> dict:
        r = player.post(path, body)
        assert r.status_code == status, r.text
        fresh = player.get(f"/matches/{r.json()['id']}")
        assert r.json() == fresh.json(), path
        return dict(r.json())

    created = answered(a, "/matches", {"game": GAME, "deck_id": d0["id"]}, 201)
    match_id = created["id"]
    assert created["status"] == "open" and len(created["seats"]) == 1
    joined = answered(b, f"/matches/{match_id}/join", {"deck_id": d1["id"]})
    assert joined["status"] == "seeding" and [s["seat"] for s in joined["seats"]] == [0, 1]
    for p in (a, b):
        p.secrets[match_id] = secrets.token_bytes(32)
        answered(p, f"/matches/{match_id}/commit", commit_body(p, match_id, p.secrets[match_id]))
    for p in (a, b):
        last = answered(
            p, f"/matches/{match_id}/reveal", {"secret": "0x" + p.secrets[match_id].hex()}
        )
    assert last["status"] == "active" and last["head_hash"] == last["genesis_hash"]
    body = a.sessions[match_id].resignation(last["version"], last["head_hash"])
    resigned = answered(a, f"/matches/{match_id}/resign", body)
    assert (resigned["status"], resigned["end_reason"], resigned["winner_seat"]) == (
        "finished",
        "resign",
        1,
    )
