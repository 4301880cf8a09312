"""The API's timeout sweep: an idle player loses even when no request touches the match."""

from __future__ import annotations

import time

import httpx
import pytest
from sqlmodel import Session, select

from ledger.chain.deployment import Deployment
from ledger.db import make_engine
from ledger.db.models import Match
from ledger.db.models.results import MatchResult
from ledger.devstack.anvil import AnvilNode
from ledger.runtime.context import Context
from ledger.settings import Settings
from tests.api.test_matches import _active


@pytest.mark.parametrize("settings_overrides", [{"turn_timeout_seconds": 1}], indirect=True)
def test_sweep_finishes_idle_matches_once(
    client: httpx.Client, anvil: AnvilNode, deployment: Deployment, api_settings: Settings
) -> None:
    from api.timeouts import sweep_once

    _, started = _active(client, anvil, deployment)
    idle = started["current_player"]
    time.sleep(2.1)
    engine = make_engine(api_settings.resolved_database_url)
    ctx = Context.create(api_settings, engine)
    try:
        # the API process's own sweeper may have got there first; either way exactly one ends it
        first = sweep_once(ctx)
        assert first in (0, 1)
        assert sweep_once(ctx) == 0, "a sweep never finishes a match twice"
        with Session(engine) as db:
            match = db.get(Match, started["id"])
            assert match is not None
            assert (match.status, match.end_reason, match.winner_seat) == (
                "finished",
                "timeout",
                1 - idle,
            )
            results = db.exec(select(MatchResult).where(MatchResult.match_id == started["id"]))
            assert len(results.all()) == 1
    finally:
        ctx.chain.close()
        engine.dispose()
