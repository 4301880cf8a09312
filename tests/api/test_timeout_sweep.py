"""The periodic timeout sweep: an idle player loses even when no request touches the match."""

from __future__ import annotations

import time

import httpx
import pytest
from sqlmodel import Session

from ledger.chain.deployment import Deployment
from ledger.db import make_engine
from ledger.db.models import Match
from ledger.devstack.anvil import AnvilNode
from ledger.settings import Settings, get_settings
from tests.api.test_matches import _active


@pytest.mark.parametrize("settings_overrides", [{"turn_timeout_seconds": 1}], indirect=True)
def test_expire_tick_finishes_idle_matches_once(
    client: httpx.Client,
    anvil: AnvilNode,
    deployment: Deployment,
    api_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workers.tasks import expire_tick

    _, started = _active(client, anvil, deployment)
    idle = started["current_player"]
    time.sleep(2.1)
    env = {
        "rpc_url": api_settings.rpc_url,
        "database_url": api_settings.resolved_database_url,
        "deployment_file": str(api_settings.resolved_deployment_file),
        "turn_timeout_seconds": "1",
    }
    for name, value in env.items():
        monkeypatch.setenv(f"METALEDGER_{name.upper()}", value)
    get_settings.cache_clear()
    try:
        assert expire_tick() == {"expired": 1}
        assert expire_tick() == {"expired": 0}, "a sweep never finishes a match twice"
    finally:
        get_settings.cache_clear()
    engine = make_engine(api_settings.resolved_database_url)
    try:
        with Session(engine) as db:
            match = db.get(Match, started["id"])
            assert match is not None
            assert (match.status, match.end_reason, match.winner_seat) == (
                "finished",
                "timeout",
                1 - idle,
            )
    finally:
        engine.dispose()
