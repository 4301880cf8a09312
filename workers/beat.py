"""The one scheduler (Celery beat) of a data directory. `metaledger beat` holds
`<data_dir>/beat.lock` while it runs; a second scheduler on the same data directory waits for
the lock instead of sending every tick twice (the kernel drops the lock when its holder dies,
however it dies)."""

from __future__ import annotations

import os
from collections.abc import Callable

from ledger.health.schedulerlock import scheduler_lock
from ledger.settings import Settings


def run_beat(settings: Settings, say: Callable[[str], None]) -> None:
    """Take the scheduler lock (waiting while another scheduler holds it), then run beat."""
    lock = scheduler_lock(settings)
    lock.acquire_waiting(
        lambda pid: say(
            f"another scheduler (pid {pid or '?'}) holds {lock.path}; waiting for it to stop"
        )
    )
    say(f"scheduler lock {lock.path} taken by pid {os.getpid()}")
    from workers.app import celery_app

    try:
        celery_app.start(["beat", "--loglevel=INFO"])
    finally:
        lock.release()
