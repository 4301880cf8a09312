"""Worker heartbeats in the database: each worker records one on its own timer, /healthz reads
the newest. A heartbeat says the worker process is alive and reaches the database; the
anchoring backlog (ledger.health.report) says whether it keeps up."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, timedelta

from sqlalchemy import Engine, delete, func, select, update
from sqlmodel import Session, col

from ledger.db import unit_of_work
from ledger.db.models.base import utcnow
from ledger.db.models.workers import WorkerHeartbeat
from ledger.errors import MetaLedgerError

log = logging.getLogger(__name__)

#: rows of workers silent this long are deleted by the next heartbeat of any worker
FORGET_AFTER = timedelta(hours=1)


@dataclass(frozen=True)
class LiveWorkers:
    """How many workers sent a heartbeat recently, and the age of the newest one."""

    count: int
    newest_age_seconds: float | None


def record_heartbeat(db: Session, worker: str, pid: int) -> None:
    """Upsert `worker`'s heartbeat (now) and delete rows of long-silent workers."""
    now = utcnow()
    updated = db.execute(
        update(WorkerHeartbeat)
        .where(col(WorkerHeartbeat.worker) == worker)
        .values(pid=pid, beat_at=now)
    )
    if not updated.rowcount:  # type: ignore[attr-defined]
        db.add(WorkerHeartbeat(worker=worker, pid=pid, started_at=now, beat_at=now))
    db.execute(delete(WorkerHeartbeat).where(col(WorkerHeartbeat.beat_at) < now - FORGET_AFTER))


def forget_heartbeat(db: Session, worker: str) -> None:
    """Remove `worker`'s row (a clean shutdown)."""
    db.execute(delete(WorkerHeartbeat).where(col(WorkerHeartbeat.worker) == worker))


def heartbeat_pid(db: Session, pid: int) -> bool:
    """Whether the worker process `pid` has recorded a heartbeat."""
    query = select(func.count()).select_from(WorkerHeartbeat).where(col(WorkerHeartbeat.pid) == pid)
    return bool(db.execute(query).scalar_one())


def live_workers(db: Session, within_seconds: float) -> LiveWorkers:
    """Workers whose latest heartbeat is at most `within_seconds` old."""
    now = utcnow()
    count, newest = db.execute(
        select(func.count(), func.max(WorkerHeartbeat.beat_at)).where(
            col(WorkerHeartbeat.beat_at) >= now - timedelta(seconds=within_seconds)
        )
    ).one()
    if newest is None:
        return LiveWorkers(0, None)
    if newest.tzinfo is None:  # SQLite returns the aggregate as a naive UTC datetime
        newest = newest.replace(tzinfo=UTC)
    return LiveWorkers(int(count), max(0.0, (now - newest).total_seconds()))


class HeartbeatThread(threading.Thread):
    """Records `worker`'s heartbeat every `interval` seconds until stopped; a failed write is
    logged and retried at the next beat (the database may be away for a while)."""

    def __init__(self, engine: Engine, worker: str, interval: float) -> None:
        super().__init__(name="metaledger-heartbeat", daemon=True)
        self.engine = engine
        self.worker = worker
        self.interval = interval
        self._stop_event = threading.Event()

    def beat(self) -> None:
        """Record one heartbeat now."""
        with unit_of_work(self.engine) as db:
            record_heartbeat(db, self.worker, os.getpid())

    def run(self) -> None:
        """Beat every `interval` seconds until stopped (the first beat is the caller's)."""
        while not self._stop_event.wait(self.interval):
            try:
                self.beat()
            except (MetaLedgerError, OSError) as exc:
                log.warning("worker heartbeat not recorded: %s", exc)
            except Exception:  # the timer must outlive any database error
                log.exception("worker heartbeat not recorded")

    def stop(self) -> None:
        """Stop beating and remove this worker's row."""
        self._stop_event.set()
        if self.is_alive():
            self.join(timeout=self.interval + 5)
        try:
            with unit_of_work(self.engine) as db:
                forget_heartbeat(db, self.worker)
        except Exception:
            log.warning("worker heartbeat row of %s not removed", self.worker)
