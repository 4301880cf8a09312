"""Worker heartbeats on SQLite and PostgreSQL, and the scheduler lock of a data directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine

from ledger.db import run_unit
from ledger.health import repository as repo
from ledger.health.schedulerlock import PidLock


def test_heartbeats_count_live_workers_until_forgotten(engine: Engine) -> None:
    assert run_unit(engine, lambda db: repo.live_workers(db, 15)) == repo.LiveWorkers(0, None)
    run_unit(engine, lambda db: repo.record_heartbeat(db, "celery@a", 101))
    run_unit(engine, lambda db: repo.record_heartbeat(db, "celery@b", 102))
    run_unit(engine, lambda db: repo.record_heartbeat(db, "celery@a", 101))  # an upsert
    live = run_unit(engine, lambda db: repo.live_workers(db, 15))
    assert live.count == 2 and live.newest_age_seconds is not None
    assert live.newest_age_seconds < 5
    assert run_unit(engine, lambda db: repo.heartbeat_pid(db, 102))
    run_unit(engine, lambda db: repo.forget_heartbeat(db, "celery@b"))
    assert not run_unit(engine, lambda db: repo.heartbeat_pid(db, 102))
    assert run_unit(engine, lambda db: repo.live_workers(db, 15)).count == 1


def test_the_lock_names_its_holder_and_is_free_once_the_holder_dies(tmp_path: Path) -> None:
    path = tmp_path / "beat.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from ledger.health.schedulerlock import "
         "PidLock; lock = PidLock(Path(sys.argv[1])); assert lock.try_acquire(); "
         "print('held', flush=True); "
         "time.sleep(60)", str(path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        lock = PidLock(path)
        assert not lock.try_acquire() and lock.holder() == holder.pid
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert lock.try_acquire() and lock.held and lock.holder() == os.getpid()
    lock.release()
    assert not lock.held
