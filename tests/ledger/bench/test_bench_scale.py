"""The short version of `metaledger bench scale` (200 results, the same faults), run as a user
runs it: every result in is anchored, none twice, none lost, and every fault really happened."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.chain, pytest.mark.slow, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[3]


def test_scale_out_with_faults_anchors_every_result_once() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ledger.cli",
            "bench",
            "scale",
            "--json",
            "--results",
            "200",
            "--players",
            "12",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["results_in"] >= 200
    assert out["anchored"] == out["results_in"], out
    assert out["anchored_twice"] == 0 and out["lost"] == 0, out
    assert out["api_processes"] >= 2 and out["workers"] >= 2
    assert all(at is not None for at in out["faults"].values()), out["faults"]
    assert out["reorged_batches"] >= 1, "the reorg removed at least one anchor"
    assert out["replaced_transactions"] >= 1, "the fee spike got an anchor replaced"
    proxy = out["proxy"]
    assert proxy["http_429"] >= 1 and proxy["json_rate_limited"] >= 1
    assert proxy["widest_log_range_served"] <= 1000
    assert out["max_pending_age_s"] > 0
