"""The web app's routes (pages with a strict CSP, assets from the package) and the endpoints
the pages added: POST /decks/check, POST /audit/verify, POST /audit/replay."""

from __future__ import annotations

import httpx
import pytest

from api.pages import PAGE_PATHS
from engine import get_game, make_bot, play_match
from ledger.audit.verify import CHECKS
from tests.api.helpers import Player

pytestmark = pytest.mark.chain


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_each_page_is_the_app_with_a_strict_csp(client: httpx.Client, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp
    assert '<meta name="metaledger-chain-id" content="31337">' in r.text
    script = client.get(r.text.split('src="', 1)[1].split('"', 1)[0])
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]


def test_an_unknown_path_is_still_a_problem(client: httpx.Client) -> None:
    r = client.get("/nowhere")
    assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"


def test_deck_check_reports_every_rule_and_stores_nothing(players: list[Player]) -> None:
    p = players[0]
    game = get_game("metax")
    r = p.post("/decks/check", {"game": "metax", "cards": {"JL-001": 5}})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["ok"] is False
    assert {v["rule"] for v in out["violations"]} >= {"metax.deck.size"}
    good = p.post("/decks/check", {"game": "metax", "cards": dict(game.starter_decks[0])}).json()
    assert good["ok"] is True and good["violations"] == []
    assert good["required"] == {
        c: n for c, n in game.required_tokens(dict(game.starter_decks[0])).items() if n
    }
    assert p.get("/decks").json() == []
    unknown = p.post("/decks/check", {"game": "metax", "cards": {"nope": 1}}).json()
    assert "nope" not in unknown["required"]
    assert any(v["card"] == "nope" for v in unknown["violations"])
    assert p.post("/decks/check", {"game": "metax", "cards": {"JL-001": 0}}).status_code == 422
    assert (
        p.client.post("/decks/check", json={"game": "metax", "cards": {"JL-001": 1}}).status_code
        == 401
    )


def test_audit_replay_steps_through_a_transcript(client: httpx.Client) -> None:
    game = get_game("metaversus")
    _state, transcript = play_match(
        game,
        (dict(game.starter_decks[0]), dict(game.starter_decks[1])),
        3,
        [make_bot("random", game, 1), make_bot("random", game, 2)],
    )
    body = transcript.to_json()
    r = client.post("/audit/replay", json={"transcript": body, "step": 5})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["total"] == len(body["actions"]) and out["step"] == 5
    assert len(out["actions"]) == out["total"] and out["observation"]["game"] == "metaversus"
    assert out["observation"]["hand"] is None  # a spectator sees no hand
    last = client.post("/audit/replay", json={"transcript": body, "step": 10**6}).json()
    assert last["step"] == last["total"] and last["observation"]["over"] is True
    huge = {**body, "game": "metamasters", "options": {"tokens": 10**9}}
    refused = client.post("/audit/replay", json={"transcript": huge, "step": 1})
    assert refused.status_code == 422 and refused.json()["field"] == "options.tokens", refused.text
    body["actions"][2] = ["no-such-move"]
    bad = client.post("/audit/replay", json={"transcript": body, "step": 5})
    assert bad.status_code == 422 and "action 2" in bad.json()["detail"]


def test_audit_verify_fails_a_malformed_bundle_on_its_format(client: httpx.Client) -> None:
    r = client.post("/audit/verify", json={"format": "something else"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["ok"] is False and [c["name"] for c in out["checks"]] == list(CHECKS)
    assert out["checks"][0]["name"] == "bundle-format" and not out["checks"][0]["ok"]
    assert "metaledger verify" in out["verifier"]


def test_a_remote_rpc_url_is_not_handed_to_the_pages() -> None:
    from api.pages import content_security_policy
    from ledger.settings import Settings

    remote = Settings(_env_file=None, rpc_url="https://eth.example/v3/secret-key")  # type: ignore[call-arg]
    assert remote.resolved_web_rpc_url is None
    assert "example" not in content_security_policy(remote.resolved_web_rpc_url)
    local = Settings(_env_file=None, rpc_url="http://127.0.0.1:8545")  # type: ignore[call-arg]
    assert local.resolved_web_rpc_url == "http://127.0.0.1:8545"
    chosen = Settings(  # type: ignore[call-arg]
        _env_file=None, rpc_url="https://eth.example/v3/k", web_rpc_url="https://rpc.example"
    )
    assert "connect-src 'self' https://rpc.example" in content_security_policy(
        chosen.resolved_web_rpc_url
    )
