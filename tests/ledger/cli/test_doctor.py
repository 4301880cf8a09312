"""`metaledger doctor` as a user runs it: it really starts and stops each local server, and a
server that fails is reported in its own words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _doctor(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env["COLUMNS"] = "1000"  # one table row per line
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli", "doctor", "--data-dir", str(data_dir), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _row(out: str, check: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(f"│ {check} "))


@pytest.mark.slow
def test_doctor_starts_and_stops_each_local_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = _doctor(data)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for name in ("node + npm", "anvil", "forge", "cast", "solc", "database"):
        assert "✓" in _row(out, name), _row(out, name)
    assert "✓ │ started on port" in _row(out, "anvil server")
    assert "answered PING, stopped" in _row(out, "redis-server")
    assert "embedded server started, created a database, stopped" in _row(out, "postgresql (tests)")
    assert "✗ │ not running" in _row(out, "local stack") and "make run" in _row(out, "local stack")
    assert "(created by `make run`)" in _row(out, "database")
    # scratch folders are removed; nothing is left listening or running
    assert sorted(p.name for p in data.iterdir()) == ["doctor-anvil.log", "doctor-redis.log"]


@pytest.mark.slow
def test_a_server_that_fails_is_named_with_its_own_last_log_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "anvil-state.json").write_text("{ not json")  # a damaged chain state
    result = _doctor(data)
    assert result.returncode == 1
    row = _row(result.stdout, "anvil server")
    assert "✗ │ anvil exited with code 2 before it could answer on port" in row
    assert "failed to parse json file" in row  # Anvil's own words
    assert f"(log: {data / 'doctor-anvil.log'})" in row
    assert "move it aside" in row
    assert "failed to parse json file" in (data / "doctor-anvil.log").read_text()
    assert "✓" in _row(result.stdout, "redis-server")
