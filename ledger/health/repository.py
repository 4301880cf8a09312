"""The queries of worker heartbeats: one row per live worker, upserted on its own timer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, timedelta

from sqlalchemy import delete, func, select, update
from sqlmodel import Session, col

from ledger.db.models.base import utcnow
from ledger.db.models.workers import WorkerHeartbeat

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
