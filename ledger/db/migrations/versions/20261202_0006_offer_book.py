"""Offer book: signed trade offers, their items and the fills the indexer saw."""

from ledger.db.migrations import ddl

revision = "0006"
down_revision = "0005"

upgrade, downgrade = ddl.create_tables(
    ddl.table(
        "offer_fills",
        ddl.integer("id"),
        ddl.string("offer_hash", 66),
        ddl.string("maker", 42),
        ddl.string("taker", 42),
        ddl.string("nonce", 78),
        ddl.integer("block_number"),
        ddl.string("block_hash", 66),
        ddl.string("tx_hash", 66),
        ddl.integer("log_index"),
        ddl.json("maker_gave", nullable=True),
        ddl.json("taker_gave", nullable=True),
        ddl.string("wei", 78, nullable=True),
        ddl.primary_key("id"),
        ddl.unique("tx_hash", "log_index", name="uq_offer_fills_log"),
        indexes=("block_number", "maker", "offer_hash", "taker"),
    ),
    ddl.table(
        "offers",
        ddl.integer("id"),
        ddl.string("offer_hash", 66),
        ddl.integer("chain_id"),
        ddl.string("exchange", 42),
        ddl.string("maker", 42),
        ddl.string("taker", 42),
        ddl.string("asked_wei", 78),
        ddl.big_integer("expiry"),
        ddl.string("nonce", 78),
        ddl.text("signature"),
        ddl.boolean("maker_is_contract"),
        ddl.json("given"),
        ddl.json("asked"),
        ddl.string("status", 16),
        ddl.string("status_reason", 32, nullable=True),
        ddl.timestamp("created_at"),
        ddl.timestamp("updated_at"),
        ddl.primary_key("id"),
        ddl.unique("offer_hash"),
        indexes=(
            ("ix_offers_maker_nonce", ["maker", "nonce"]),
            ("ix_offers_maker_status", ["maker", "status", "id"]),
            ("ix_offers_status_id", ["status", "id"]),
            ("ix_offers_status_price", ["status", "asked_wei", "id"]),
            ("ix_offers_taker_status", ["taker", "status", "id"]),
        ),
    ),
    ddl.table(
        "offer_items",
        ddl.integer("offer_id"),
        ddl.string("side", 5),
        ddl.string("token_id", 66),
        ddl.big_integer("amount"),
        ddl.string("game", 32),
        ddl.references("offer_id", "offers.id"),
        ddl.primary_key("offer_id", "side", "token_id"),
        indexes=(
            ("ix_offer_items_card", ["token_id", "side", "offer_id"]),
            ("ix_offer_items_game", ["game", "offer_id"]),
        ),
    ),
)
