"""Anchor transactions: every signed attempt to anchor a batch (the fee bumps)."""

from ledger.db.migrations import ddl

revision = "0004"
down_revision = "0003"

# the transaction each batch already recorded is its first attempt
MOVE_IN = (
    "INSERT INTO anchor_transactions (batch_id, nonce, tx_hash, raw_tx, max_fee_per_gas, "
    "max_priority_fee_per_gas, created_at) SELECT id, nonce, tx_hash, raw_tx, 0, 0, "
    "COALESCE(signed_at, created_at) FROM batches WHERE raw_tx IS NOT NULL "
    "AND nonce IS NOT NULL AND tx_hash IS NOT NULL"
)

upgrade, downgrade = ddl.create_tables(
    ddl.table(
        "anchor_transactions",
        ddl.integer("id"),
        ddl.integer("batch_id"),
        ddl.integer("nonce"),
        ddl.string("tx_hash", 66),
        ddl.text("raw_tx"),
        ddl.big_integer("max_fee_per_gas"),
        ddl.big_integer("max_priority_fee_per_gas"),
        ddl.timestamp("created_at"),
        ddl.references("batch_id", "batches.id"),
        ddl.primary_key("id"),
        ddl.unique("tx_hash"),
        indexes=("batch_id",),
    ),
    then=(MOVE_IN,),
)
