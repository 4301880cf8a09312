"""initial schema

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-30 10:57:50.058609
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "batches",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("chain_id", sa.Integer(), nullable=False),
        sa.Column("ledger_address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("root", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("prev_batch_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("batch_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("anchorer", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=True),
        sa.Column("nonce", sa.Integer(), nullable=True),
        sa.Column("raw_tx", sa.Text(), nullable=True),
        sa.Column("tx_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("signed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("block_number", sa.Integer(), nullable=True),
        sa.Column("block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True),
        sa.Column("gas_used", sa.Integer(), nullable=True),
        sa.Column("confirmed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("reorgs", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_batches_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_batches_tx_hash"), ["tx_hash"], unique=False)

    op.create_table(
        "card_designs",
        sa.Column("token_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("card_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("catalogue_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("token_id"),
        sa.UniqueConstraint("game", "card_id", name="uq_card_designs_game_card"),
    )
    with op.batch_alter_table("card_designs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_card_designs_game"), ["game"], unique=False)

    op.create_table(
        "indexer_cursors",
        sa.Column("contract", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("chain_id", sa.Integer(), nullable=False),
        sa.Column("last_block", sa.Integer(), nullable=False),
        sa.Column("last_block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("contract"),
    )
    op.create_table(
        "signin_nonces",
        sa.Column("nonce", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("nonce"),
    )
    with op.batch_alter_table("signin_nonces", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_signin_nonces_expires_at"), ["expires_at"], unique=False
        )

    op.create_table(
        "token_balances",
        sa.Column("owner", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("token_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("owner", "token_id"),
    )
    op.create_table(
        "token_transfers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("block_number", sa.Integer(), nullable=False),
        sa.Column("block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("tx_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("item_index", sa.Integer(), nullable=False),
        sa.Column("operator", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("from_address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("to_address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("token_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "tx_hash", "log_index", "item_index", name="uq_token_transfers_log_item"
        ),
    )
    with op.batch_alter_table("token_transfers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_token_transfers_block_number"), ["block_number"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_token_transfers_from_address"), ["from_address"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_token_transfers_to_address"), ["to_address"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_token_transfers_token_id"), ["token_id"], unique=False)

    op.create_table(
        "wallets",
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("is_contract", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("lock_version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )
    op.create_table(
        "deck_commitments",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=36), nullable=False),
        sa.Column("owner", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ruleset_version", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("deck_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("required", sa.JSON(), nullable=False),
        sa.Column("held", sa.JSON(), nullable=False),
        sa.Column("block_number", sa.Integer(), nullable=False),
        sa.Column("block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner"],
            ["wallets.address"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("deck_commitments", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_deck_commitments_deck_hash"), ["deck_hash"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_deck_commitments_owner"), ["owner"], unique=False)

    op.create_table(
        "matches",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ruleset_version", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("catalogue_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("bot_seat", sa.Integer(), nullable=True),
        sa.Column("bot_name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("operator_commit", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("operator_secret", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("seed", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True),
        sa.Column("ownership_block", sa.Integer(), nullable=True),
        sa.Column(
            "ownership_block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True
        ),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state_version", sa.Integer(), nullable=False),
        sa.Column("checkpoints", sa.JSON(), nullable=False),
        sa.Column("current_player", sa.Integer(), nullable=True),
        sa.Column("turn_deadline", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("end_reason", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["wallets.address"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_matches_created_by"), ["created_by"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_game"), ["game"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_status"), ["status"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["address"],
            ["wallets.address"],
        ),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_address"), ["address"], unique=False)

    op.create_table(
        "match_actions",
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("by_bot", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("match_id", "index"),
    )
    op.create_table(
        "match_seats",
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("deck_id", sqlmodel.sql.sqltypes.AutoString(length=36), nullable=True),
        sa.Column("deck_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("seed_commit", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True),
        sa.Column("seed_secret", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=True),
        sa.ForeignKeyConstraint(
            ["deck_id"],
            ["deck_commitments.id"],
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_seats_address"), ["address"], unique=False)

    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("chain_id", sa.Integer(), nullable=False),
        sa.Column(
            "verifying_contract", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False
        ),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ruleset_version", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player0", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("player1", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("deck0", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("deck1", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("seed_commitments", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("transcript_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("final_state_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("winner", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("ownership_block", sa.Integer(), nullable=False),
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("signature", sqlmodel.sql.sqltypes.AutoString(length=132), nullable=False),
        sa.Column("signer", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("end_reason", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("transcript", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
        sa.UniqueConstraint("match_id"),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["result_id"],
            ["results.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("result_id"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_created_at"), ["created_at"], unique=False)

    op.create_table(
        "result_proofs",
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("tree_index", sa.Integer(), nullable=False),
        sa.Column("proof", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["batches.id"],
        ),
        sa.ForeignKeyConstraint(
            ["result_id"],
            ["results.id"],
        ),
        sa.PrimaryKeyConstraint("result_id"),
    )
    with op.batch_alter_table("result_proofs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_result_proofs_batch_id"), ["batch_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("result_proofs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_result_proofs_batch_id"))

    op.drop_table("result_proofs")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_created_at"))
        batch_op.drop_index(batch_op.f("ix_outbox_batch_id"))

    op.drop_table("outbox")
    op.drop_table("results")
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_seats_address"))

    op.drop_table("match_seats")
    op.drop_table("match_actions")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_address"))

    op.drop_table("sessions")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_status"))
        batch_op.drop_index(batch_op.f("ix_matches_game"))
        batch_op.drop_index(batch_op.f("ix_matches_created_by"))

    op.drop_table("matches")
    with op.batch_alter_table("deck_commitments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deck_commitments_owner"))
        batch_op.drop_index(batch_op.f("ix_deck_commitments_deck_hash"))

    op.drop_table("deck_commitments")
    op.drop_table("wallets")
    with op.batch_alter_table("token_transfers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_token_transfers_token_id"))
        batch_op.drop_index(batch_op.f("ix_token_transfers_to_address"))
        batch_op.drop_index(batch_op.f("ix_token_transfers_from_address"))
        batch_op.drop_index(batch_op.f("ix_token_transfers_block_number"))

    op.drop_table("token_transfers")
    op.drop_table("token_balances")
    with op.batch_alter_table("signin_nonces", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signin_nonces_expires_at"))

    op.drop_table("signin_nonces")
    op.drop_table("indexer_cursors")
    with op.batch_alter_table("card_designs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_card_designs_game"))

    op.drop_table("card_designs")
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_batches_tx_hash"))
        batch_op.drop_index(batch_op.f("ix_batches_status"))

    op.drop_table("batches")
