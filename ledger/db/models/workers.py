"""Worker heartbeats: each Celery worker's latest sign of life (read by /healthz)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from ledger.db.models.base import utcnow


class WorkerHeartbeat(SQLModel, table=True):
    """The latest heartbeat of one worker, by its Celery node name (written on a timer that
    does not depend on the beat schedule)."""

    __tablename__ = "worker_heartbeats"

    worker: str = Field(primary_key=True, max_length=200)
    pid: int
    started_at: datetime = Field(default_factory=utcnow)
    beat_at: datetime = Field(default_factory=utcnow, index=True)
