"""The engine benchmark runs for any registered game and reports the documented keys."""

from __future__ import annotations

import pytest

from ledger.bench.engine import run
from ledger.errors import MetaLedgerError

KEYS = {
    "game",
    "matches",
    "matches_per_s",
    "actions_per_s",
    "replay_matches_per_s",
    "state_bytes",
    "peak_rss_mb",
}


def test_short_metax_benchmark() -> None:
    result = run(game="metax", seconds=0.5)
    assert set(result) >= KEYS
    assert result["game"] == "metax" and result["matches"] >= 1
    assert 0 < result["state_bytes"] <= 16384
    assert result["replay_matches_per_s"] > 0


def test_unknown_game() -> None:
    with pytest.raises(MetaLedgerError):
        run(game="chess", seconds=0.1)
