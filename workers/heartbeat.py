"""Each worker records a heartbeat in the database on its own timer (a thread started when the
worker is ready), independent of the beat schedule and of the tasks it runs."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_ready, worker_shutdown
from celery.utils.log import get_task_logger

from ledger.health.heartbeat import HeartbeatThread

log = get_task_logger(__name__)
_threads: list[HeartbeatThread] = []


def start_heartbeat(sender: Any = None, **_: Any) -> None:
    """Start beating as soon as the worker consumes tasks."""
    from ledger.db import get_engine
    from ledger.settings import get_settings

    name = getattr(sender, "hostname", None) or "celery"
    thread = HeartbeatThread(get_engine(), name, get_settings().worker_heartbeat_seconds)
    try:
        thread.beat()  # the first one at once: a supervisor waits for it
    except Exception as exc:  # the thread retries; the worker runs on meanwhile
        log.warning("worker heartbeat not recorded: %s", exc)
    thread.start()
    _threads.append(thread)


def stop_heartbeat(**_: Any) -> None:
    """Stop beating and remove the row (a clean shutdown is not a dead worker)."""
    while _threads:
        _threads.pop().stop()


# connected without decorator syntax so the functions keep their types
worker_ready.connect(start_heartbeat)
worker_shutdown.connect(stop_heartbeat)
