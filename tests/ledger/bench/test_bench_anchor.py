"""`metaledger bench anchor` runs end to end (a small number of results) and reports every figure."""

from __future__ import annotations

import pytest

from ledger.bench.anchor import run
from ledger.errors import MetaLedgerError

pytestmark = pytest.mark.chain


@pytest.mark.slow
def test_bench_anchor_smoke() -> None:
    out = run(results=200)
    assert out["results"] == 200
    assert out["results_per_s"] > 0
    assert set(out["gas_per_result"]) == {"1", "64", "1024"}
    per_result = out["gas_per_result"]
    assert per_result["1"] > per_result["64"] > per_result["1024"] > 0
    assert out["worker_rss_mb"] > 0


def test_bench_anchor_refuses_zero_results() -> None:
    with pytest.raises(MetaLedgerError, match="--results must be at least 1"):
        run(results=0)
