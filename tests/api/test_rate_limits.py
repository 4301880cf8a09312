"""Unauthenticated endpoints are rate-limited per client address (429 with Retry-After), with
counts in the database that several API processes share; unused nonces expire and are purged."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from sqlmodel import Session

from ledger.auth import repository as auth_repository
from ledger.db import get_engine
from ledger.settings import Settings
from tests.api.conftest import LiveServer

pytestmark = pytest.mark.chain


#: the limits count in fixed windows of wall-clock time (ledger/ratelimits): a test's requests
#: must fall in one window, so the counting tests run with hour-long windows, begun with time to
#: spare (a minute-long window turned during 200 requests on a loaded CI machine)
WINDOW = 3600
HOUR = {"rate_limit_window_seconds": WINDOW}


def _in_one_window(needed: float) -> None:
    """Wait for the next hour-long window if the current one ends within `needed` seconds."""
    left = WINDOW - time.time() % WINDOW
    if left < needed:
        time.sleep(left + 0.05)


def _nonce_rows(settings: Settings) -> int:
    with Session(get_engine(settings.resolved_database_url)) as db:
        return auth_repository.count_nonces(db)


@pytest.mark.parametrize("settings_overrides", [HOUR], indirect=True)
def test_200_nonce_requests_leave_at_most_the_limit(
    client: httpx.Client, api_settings: Settings
) -> None:
    _in_one_window(needed=120)
    codes = [client.post("/auth/nonce").status_code for _ in range(200)]
    limit = api_settings.sign_in_rate_limit
    assert codes[:limit] == [200] * limit and set(codes[limit:]) == {429}
    refused = client.post("/auth/nonce")
    assert refused.status_code == 429
    assert refused.headers["content-type"].startswith("application/problem+json")
    body = refused.json()
    assert (
        body["limit"] == "sign_in_rate_limit" and body["setting"] == "METALEDGER_SIGN_IN_RATE_LIMIT"
    )
    assert 1 <= int(refused.headers["Retry-After"]) <= api_settings.rate_limit_window_seconds
    assert body["retry_after"] == int(refused.headers["Retry-After"])
    assert _nonce_rows(api_settings) <= limit
    # authenticated endpoints do not count against it
    assert client.get("/auth/me").status_code == 401


@pytest.mark.parametrize(
    "settings_overrides", [{"public_rate_limit": 3, "sign_in_rate_limit": 2, **HOUR}], indirect=True
)
def test_public_reads_have_their_own_limit(client: httpx.Client) -> None:
    _in_one_window(needed=30)
    assert [client.get("/games").status_code for _ in range(4)] == [200, 200, 200, 429]
    assert client.get("/games/metax/cards").status_code == 429
    assert client.post("/auth/nonce").status_code == 200  # another bucket
    assert client.get("/healthz").status_code in (200, 503)  # probes are not limited
    assert client.get("/docs").status_code == 200


@pytest.fixture
def two_processes(api_settings: Settings, evm_snapshot: object) -> Iterator[list[LiveServer]]:
    """Two API servers (as two processes would be) on one database."""
    settings = api_settings.model_copy(update={"sign_in_rate_limit": 5, **HOUR})
    with LiveServer(settings) as first, LiveServer(settings) as second:
        yield [first, second]


def test_the_counts_are_shared_by_every_api_process(two_processes: list[LiveServer]) -> None:
    _in_one_window(needed=30)
    clients = [httpx.Client(base_url=s.url, headers={"Host": "testserver"}) for s in two_processes]
    try:
        codes = [clients[i % 2].post("/auth/nonce").status_code for i in range(8)]
    finally:
        for c in clients:
            c.close()
    assert codes == [200] * 5 + [429] * 3


@pytest.mark.parametrize("settings_overrides", [{"siwe_nonce_ttl_seconds": 1}], indirect=True)
def test_expired_nonces_are_purged(client: httpx.Client, api_settings: Settings) -> None:
    for _ in range(5):
        assert client.post("/auth/nonce").status_code == 200
    assert _nonce_rows(api_settings) == 5
    time.sleep(1.2)
    assert client.post("/auth/nonce").status_code == 200
    assert _nonce_rows(api_settings) == 1


@pytest.mark.parametrize("settings_overrides", [{"sign_in_rate_limit": 3, **HOUR}], indirect=True)
def test_a_forged_x_forwarded_for_does_not_escape_the_limit(client: httpx.Client) -> None:
    _in_one_window(needed=30)
    codes = [
        client.post("/auth/nonce", headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
        for i in range(5)
    ]
    assert codes == [200, 200, 200, 429, 429]


def test_x_forwarded_for_is_trusted_only_from_configured_proxies(api_settings: Settings) -> None:
    from api.server import uvicorn_config

    default = uvicorn_config("api.app:app", "127.0.0.1", 0, api_settings)
    assert default.proxy_headers is False
    behind = uvicorn_config(
        "api.app:app",
        "127.0.0.1",
        0,
        api_settings.model_copy(update={"forwarded_allow_ips": "10.1.2.3"}),
    )
    assert behind.proxy_headers is True and behind.forwarded_allow_ips == "10.1.2.3"
