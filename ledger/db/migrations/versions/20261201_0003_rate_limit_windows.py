"""Rate limit windows: the hits of one key in one fixed window."""

from ledger.db.migrations import ddl

revision = "0003"
down_revision = "0002"

upgrade, downgrade = ddl.create_tables(
    ddl.table(
        "rate_limit_windows",
        ddl.string("key", 128),
        ddl.integer("window_start"),
        ddl.integer("hits"),
        ddl.primary_key("key", "window_start"),
        indexes=("window_start",),
    ),
)
