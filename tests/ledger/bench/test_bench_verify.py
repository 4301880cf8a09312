"""`metaledger bench verify` makes anchored bundles through the API and times the bulk audit."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from ledger.bench.verify import run

pytestmark = pytest.mark.chain


@pytest.mark.slow
def test_bench_verify_smoke(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    made: list[Path] = []
    real = tempfile.mkdtemp

    def mkdtemp(*args: Any, prefix: str = "", **kwargs: Any) -> str:
        if not prefix.startswith("metaledger-bench-"):
            return real(*args, prefix=prefix, **kwargs)
        made.append(tmp_path / f"{prefix}{len(made)}")
        made[-1].mkdir()
        return str(made[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    out = run(bundles=3, wallets=2)
    # the bundles' folder and the stack's (databases, logs) are removed after a run that passed
    assert len(made) == 2 and not any(folder.exists() for folder in made), made
    assert out["bundles"] == 3 and out["bundles_per_s"] > 0, out
    assert out["verify_seconds"] > 0 and out["single_bundle_seconds"] > 0
    assert out["mean_entries_per_bundle"] > 0
    assert out["verify_cpu_seconds"] > 0 and out["verify_cpu_ms_per_bundle"] > 0
