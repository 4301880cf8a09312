"""Live seats: a seat says whether its match is still live, and an index on (address, live) finds
an owner's live seats without reading all its past ones (the copies check of every deck
registration, match creation, join and start). It replaces the index on the address alone,
whose lookups it serves as well."""

from ledger.db.migrations import ddl

revision = "0007"
down_revision = "0006"

upgrade, downgrade = ddl.add_columns(
    {"match_seats": (ddl.flag("live", default=True),)},
    then=(
        "UPDATE match_seats SET live = FALSE WHERE match_id IN "
        "(SELECT id FROM matches WHERE status NOT IN ('open', 'seeding', 'active'))",
    ),
    indexes={"match_seats": (("ix_match_seats_address_live", ["address", "live"]),)},
    dropped_indexes={"match_seats": (("ix_match_seats_address", ["address"]),)},
)
