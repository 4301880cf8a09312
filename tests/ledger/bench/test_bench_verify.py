"""`metaledger bench verify` makes anchored bundles through the API and times the bulk audit."""

from __future__ import annotations

import pytest

from ledger.bench.verify import run

pytestmark = pytest.mark.chain


@pytest.mark.slow
def test_bench_verify_smoke() -> None:
    out = run(bundles=3, wallets=2)
    assert out["bundles"] == 3 and out["bundles_per_s"] > 0, out
    assert out["verify_seconds"] > 0 and out["single_bundle_seconds"] > 0
    assert out["mean_entries_per_bundle"] > 0
    assert out["verify_cpu_seconds"] > 0 and out["verify_cpu_ms_per_bundle"] > 0
