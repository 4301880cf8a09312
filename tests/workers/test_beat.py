"""One scheduler per data directory: `metaledger beat` holds the beat lock; a second one waits
(and sends nothing) until the first dies, however it dies. Real processes, real Redis."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from ledger.devstack.childprocess import ChildProcess
from ledger.health.schedulerlock import PidLock

ROOT = Path(__file__).resolve().parents[2]


def _beat(tmp: Path, name: str, broker_url: str) -> ChildProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METALEDGER_")}
    env.update(METALEDGER_BROKER_URL=broker_url, METALEDGER_DATA_DIR=str(tmp / "data"))
    args = [sys.executable, "-m", "ledger.cli", "beat"]
    return ChildProcess(name, args, log_file=tmp / f"{name}.log", env=env, cwd=ROOT).start()


def _wait(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_second_scheduler_waits_for_the_first(tmp_path: Path, broker_url: str) -> None:
    lock = PidLock(tmp_path / "data" / "beat.lock")
    first = _beat(tmp_path, "beat1", broker_url)
    second: ChildProcess | None = None
    try:
        _wait(lambda: lock.holder() == first.pid, 30, "the first scheduler to take the lock")
        _wait(lambda: "beat: Starting" in (tmp_path / "beat1.log").read_text(), 30, "beat to start")
        second = _beat(tmp_path, "beat2", broker_url)
        log2 = tmp_path / "beat2.log"
        _wait(lambda: "waiting for it to stop" in log2.read_text(), 30, "the second to wait")
        assert f"another scheduler (pid {first.pid}) holds {lock.path}" in log2.read_text()
        time.sleep(1)
        assert second.alive() and "beat: Starting" not in log2.read_text()
        assert lock.holder() == first.pid
        os.kill(first.pid, signal.SIGKILL)  # no clean-up at all: the kernel drops the lock
        _wait(lambda: lock.holder() == second.pid, 30, "the second to take over")
        _wait(lambda: "beat: Starting" in log2.read_text(), 30, "the second beat to start")
    finally:
        first.stop()
        if second is not None:
            second.stop()
