"""`metaledger bench api` runs end to end (tiny parameters) and reports every figure."""

from __future__ import annotations

import pytest

from ledger.bench.api import run

pytestmark = pytest.mark.chain


@pytest.mark.slow
def test_bench_api_smoke() -> None:
    out = run(seconds=1.0, rate=20.0, clients=2, wallets=4, rounds=1)
    for key in (
        "deck_verify_p50_ms",
        "deck_verify_p99_ms",
        "deck_verify_max_per_s",
        "actions_per_s",
        "api_rss_mb",
    ):
        assert isinstance(out[key], int | float) and out[key] > 0, (key, out)
    assert out["deck_verify_errors"] == 0 and out["deck_verify_closed_loop_errors"] == 0
