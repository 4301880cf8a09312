"""Worker heartbeats: one row per Celery worker, its last beat."""

from ledger.db.migrations import ddl

revision = "0002"
down_revision = "0001"

upgrade, downgrade = ddl.create_tables(
    ddl.table(
        "worker_heartbeats",
        ddl.string("worker", 200),
        ddl.integer("pid"),
        ddl.timestamp("started_at"),
        ddl.timestamp("beat_at"),
        ddl.primary_key("worker"),
        indexes=("beat_at",),
    ),
)
