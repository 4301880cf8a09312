"""The Celery app: broker from settings, JSON only, explicit task names, periodic schedule.

Run workers with ``metaledger worker`` (= ``celery -A workers.app:celery_app worker
--pool=solo --concurrency=1``) and exactly one scheduler with ``metaledger beat``. Tasks are
thin: they call ``ledger.anchoring.service`` and ``ledger.indexing.service``. Workers hold the
anchorer key only; the turn-timeout sweep signs results, so it runs in the API processes
(``api.timeouts``).
Each worker records a heartbeat in the database (``workers.heartbeat``).
"""

from __future__ import annotations

from celery import Celery

from ledger.settings import get_settings

ANCHOR_TICK = "metaledger.anchoring.tick"
ANCHOR_NOW = "metaledger.anchoring.anchor_now"
INDEX_TICK = "metaledger.indexer.tick"


def make_app() -> Celery:
    """A Celery app configured from `ledger.settings`."""
    settings = get_settings()
    app = Celery("metaledger", include=["workers.tasks", "workers.heartbeat"])
    anchor_every = min(1.0, settings.batch_max_seconds)
    settings.data_dir.mkdir(parents=True, exist_ok=True)  # the beat schedule file lives there
    app.conf.update(
        broker_url=settings.resolved_broker_url,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # keep reconnecting while the broker is down
        broker_transport_options={"visibility_timeout": 600},
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        task_ignore_result=True,
        result_backend=None,
        task_acks_late=False,  # only the idempotent tasks opt in (see workers.tasks)
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=True,  # tasks are idempotent
        timezone="UTC",
        enable_utc=True,
        beat_schedule_filename=str(settings.data_dir / "celerybeat-schedule"),
        beat_schedule={
            # ticks expire so that ticks queued while a worker was busy or away don't pile up
            "anchor": {
                "task": ANCHOR_TICK,
                "schedule": anchor_every,
                "options": {"expires": max(5.0, 5 * anchor_every)},
            },
            "index": {
                "task": INDEX_TICK,
                "schedule": settings.indexer_poll_seconds,
                "options": {"expires": max(5.0, 5 * settings.indexer_poll_seconds)},
            },
        },
    )
    return app


celery_app = make_app()
