"""`metaledger doctor` on a machine with the toolchain installed: every essential check passes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ledger.ports import free_port


def test_doctor_passes_with_the_toolchain_and_names_what_is_not_running(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env.update(
        METALEDGER_DATA_DIR=str(tmp_path),
        METALEDGER_RPC_URL=f"http://127.0.0.1:{free_port()}",
        METALEDGER_REDIS_PORT=str(free_port()),
        COLUMNS="200",
    )
    result = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for name in ("node + npm", "anvil", "forge", "cast", "solc", "database", "broker"):
        assert name in out
    assert "nothing answers at" in out and "make run (starts a local Anvil)" in out
    assert "deployment.json is missing" in out
