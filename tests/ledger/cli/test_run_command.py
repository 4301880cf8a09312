"""`metaledger run` (what `make run` calls): the whole stack comes up, /healthz answers with the
chain id and the contract addresses, and Ctrl-C stops everything it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from ledger.ports import free_port, is_free


def test_run_brings_the_stack_up_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    ports = {name: free_port() for name in ("anvil", "redis", "api")}
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env.update(
        METALEDGER_DATA_DIR=str(tmp_path / "data"),
        METALEDGER_ANVIL_PORT=str(ports["anvil"]),
        METALEDGER_REDIS_PORT=str(ports["redis"]),
        METALEDGER_API_PORT=str(ports["api"]),
        METALEDGER_BATCH_MAX_SECONDS="1",
    )
    log = (tmp_path / "run.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger.cli", "run"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        health = None
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                reply = httpx.get(f"http://127.0.0.1:{ports['api']}/healthz", timeout=1)
                if reply.status_code == 200:
                    health = reply.json()
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        output = (tmp_path / "run.log").read_text()
        assert health is not None, output
        assert health["chain_id"] == 31337
        deployment = (tmp_path / "data" / "deployment.json").read_text()
        for address in health["contracts"].values():
            assert address in deployment
        # wait until the welcome text is printed, then press Ctrl-C
        deadline = time.monotonic() + 60
        while (
            "Press Ctrl-C to stop." not in (tmp_path / "run.log").read_text()
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
        assert "metaledger play" in (tmp_path / "run.log").read_text()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    assert "stopped everything" in (tmp_path / "run.log").read_text()
    time.sleep(0.5)
    for name, port in ports.items():
        assert is_free(port), f"{name} still holds port {port} after Ctrl-C"
