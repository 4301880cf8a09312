"""Worker heartbeats in the database: each worker records one on its own timer, /healthz reads
the newest. A heartbeat says the worker process is alive and reaches the database; the
anchoring backlog (ledger.health.report) says whether it keeps up."""

from __future__ import annotations

import logging
import os
import threading

from sqlalchemy import Engine

from ledger.db import unit_of_work
from ledger.errors import MetaLedgerError
from ledger.health.repository import forget_heartbeat, record_heartbeat

log = logging.getLogger(__name__)


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
