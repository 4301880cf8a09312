"""The hot routes (the play loop's, `POST /matches/{id}/actions`, `GET /matches/{id}/legal-actions`
and the match's setup, and the deck registration, `POST /decks`) take the lean ASGI path
(`api.hotroute.HotPath`): what a client sees must be what the full stack answers — the same problem+json refusals, headers and metrics; a method or path no hot route
takes exactly goes the full way; an unexpected error is the 500 problem (no stack trace)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from api.hotroute import HotPath
from api.limits import InputLimitsMiddleware
from api.metrics import MetricsMiddleware
from engine import get_game
from ledger.matches import service as matches
from tests.api.conftest import PLAYER_KEYS, LiveServer
from tests.api.helpers import Player, sign_in

MATCH = "0x" + "ab" * 32


@pytest.fixture
def player(client: httpx.Client) -> Player:
    return sign_in(client, PLAYER_KEYS[0])


def _problem(response: httpx.Response, status: int) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, object] = response.json()
    assert body["status"] == status
    return body


def test_refusals_are_the_full_stacks(client: httpx.Client, player: Player) -> None:
    unsigned = client.get(f"/matches/{MATCH}/legal-actions")
    assert _problem(unsigned, 401)["instance"] == f"/matches/{MATCH}/legal-actions"
    assert unsigned.headers["www-authenticate"] == "Bearer"
    assert _problem(player.get(f"/matches/{MATCH}/legal-actions"), 404)["detail"] == (
        f"no match {MATCH!r}"
    )
    bad = _problem(player.post("/matches/0xNOPE/actions", {"action": ["pass"]}), 422)
    locations = [e["loc"] for e in bad["errors"]]  # type: ignore[attr-defined]
    assert ["path", "match_id"] in locations
    assert ["body", "salt"] in locations and ["body", "signature"] in locations


def test_what_no_hot_route_takes_goes_the_full_way(client: httpx.Client, player: Player) -> None:
    head = player.client.head(f"/matches/{MATCH}/legal-actions", headers=player.headers)
    assert head.status_code == 405
    slash = player.get(f"/matches/{MATCH}/legal-actions/")  # the router's slash redirect
    assert slash.status_code == 307
    assert slash.headers["location"].endswith(f"/matches/{MATCH}/legal-actions")
    assert _problem(player.client.put(f"/matches/{MATCH}/actions", headers=player.headers), 405)


def test_hot_requests_are_counted_by_route(client: httpx.Client, player: Player) -> None:
    for _ in range(3):
        player.get(f"/matches/{MATCH}/legal-actions")
    text = client.get("/metrics").text
    line = next(
        line
        for line in text.splitlines()
        if line.startswith("metaledger_http_requests_total{")
        and 'route="/matches/{match_id}/legal-actions"' in line
        and 'status="404"' in line
    )
    assert float(line.rsplit(" ", 1)[1]) >= 3


@pytest.mark.parametrize("path", [f"/matches/{MATCH}/legal-actions", f"/matches/{MATCH}"])
def test_an_unexpected_error_is_the_500_problem(
    live_api: LiveServer, player: Player, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The same on the lean path (legal-actions) as on the full one (the match)."""

    def broken(*_: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(matches, "legal_moves_of", broken)
    monkeypatch.setattr(matches, "get_match", broken)
    for _ in range(2):  # the server answers, then closes the connection; and again
        with httpx.Client(base_url=live_api.url, headers={"Host": "testserver"}) as fresh:
            body = _problem(fresh.get(path, headers=player.headers), 500)
        assert body["detail"] == "an unexpected error occurred; it has been logged"
        assert "secret" not in str(body)


def test_the_apps_metrics_and_input_limits_run_in_line_on_the_hot_path() -> None:
    """`api.app` adds exactly metrics, then input limits: the hot path calls their steps in
    line (the tests above then check that what a client sees is unchanged)."""
    from api.app import create_app

    entry = create_app().build_middleware_stack()
    assert isinstance(entry, HotPath)
    assert isinstance(entry.metrics, MetricsMiddleware)
    assert isinstance(entry.limits, InputLimitsMiddleware)


def test_fastapis_telemetry_check_runs_once_not_per_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """FastAPI asks OpenTelemetry on every request whether its native telemetry is on; the app
    asks when its stack is built (first request), then serves HTTP straight through it."""
    from api.app import create_app

    app = create_app()
    asked: list[bool] = []
    check = app._native_telemetry.enabled  # type: ignore[attr-defined]

    def counted() -> bool:
        asked.append(True)
        return bool(check())

    monkeypatch.setattr(app._native_telemetry, "enabled", counted)  # type: ignore[attr-defined]

    async def five_requests() -> list[httpx.Response]:
        # no lifespan: only routing and problems are used
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return [await c.get("/no-such-page") for _ in range(5)]

    for missing in asyncio.run(five_requests()):
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/problem+json"
    assert len(asked) == 2  # FastAPI's entry at the first request, HotPath when built
    assert isinstance(app.middleware_stack, HotPath) and app.middleware_stack.enabled


def test_the_deck_registration_is_hot_with_the_full_stacks_refusals(
    client: httpx.Client, player: Player
) -> None:
    from api.app import create_app

    entry = create_app().build_middleware_stack()
    assert isinstance(entry, HotPath)
    assert ("/decks", frozenset({"POST"})) in {(r.path, m) for r, _, m, _ in entry.routes}
    unsigned = client.post("/decks", json={"game": "metax", "cards": {}})
    assert _problem(unsigned, 401)["instance"] == "/decks"
    assert unsigned.headers["www-authenticate"] == "Bearer"
    bad = _problem(player.post("/decks", {"game": 7}), 422)
    locations = [e["loc"] for e in bad["errors"]]  # type: ignore[attr-defined]
    assert ["body", "game"] in locations and ["body", "cards"] in locations
    # the other /decks routes stay on the full stack, by method and path
    assert player.get("/decks").status_code == 200
    deck = dict(get_game("metax").starter_decks[0])
    checked = player.post("/decks/check", {"game": "metax", "cards": deck})
    assert checked.status_code == 200 and "violations" in checked.json()
