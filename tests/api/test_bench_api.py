"""`metaledger bench api` runs end to end (tiny parameters) and reports every figure: the bare
baseline and the signed moves measured in the same run (on the play channel and by HTTP), on
SQLite, two processes (their channels told of each other's moves through the broker) and
PostgreSQL, the deck phases, and the RSS of a (short) soak."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from ledger.bench.api import run

pytestmark = pytest.mark.chain


@pytest.mark.slow
def test_bench_api_smoke(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder, real = tmp_path / "stack", tempfile.mkdtemp

    def mkdtemp(*args: Any, prefix: str = "", **kwargs: Any) -> str:
        if prefix != "metaledger-bench-api-":
            return real(*args, prefix=prefix, **kwargs)
        folder.mkdir()
        return str(folder)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    out = run(
        seconds=1.0, rate=20.0, clients=2, minutes=0.05, processes=2, match_clients=2, wallets=4
    )
    assert not folder.exists()  # its databases and logs removed after a run that passed
    for key in (
        "baseline_per_s",
        "baseline_cpu_ms_per_request",
        "signed_actions_per_s",
        "signed_cpu_ms_per_action",
        "signed_actions_per_s_http",
        "signed_cpu_ms_per_action_http",
        "signed_messages_per_s",
        "signed_actions_per_s_2_processes",
        "signed_actions_per_s_postgres",
        "deck_verify_p50_ms",
        "deck_verify_p99_ms",
        "deck_verify_max_per_s",
        "actions_per_s",
        "api_rss_mb",
        "api_rss_start_mb",
    ):
        assert isinstance(out[key], int | float) and out[key] > 0, (key, out)
    assert out["signed_vs_baseline"] == round(
        out["signed_actions_per_s"] / out["baseline_per_s"], 3
    )
    # the baseline measured on either side of the signed moves: the ratio takes their mean
    before, after = out["baseline_per_s_before_after"]
    assert before > 0 and after > 0 and out["baseline_per_s"] == round((before + after) / 2, 1)
    assert all(c > 0 for c in out["baseline_cpu_ms_per_request_before_after"])
    assert isinstance(out["api_rss_growth_pct"], int | float)
    assert out["deck_verify_errors"] == 0 and out["deck_verify_closed_loop_errors"] == 0
    assert out["signed_errors"] == 0 and out["baseline_errors"] == 0
    assert out["signed_http_errors"] == 0
    assert out["signed_http_vs_baseline"] == round(
        out["signed_actions_per_s_http"] / out["baseline_per_s"], 3
    )
