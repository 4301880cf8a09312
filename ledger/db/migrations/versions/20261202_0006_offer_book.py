"""offer book

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "offer_fills",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("offer_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("maker", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("taker", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("nonce", sqlmodel.sql.sqltypes.AutoString(length=78), nullable=False),
        sa.Column("block_number", sa.Integer(), nullable=False),
        sa.Column("block_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("tx_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("maker_gave", sa.JSON(), nullable=True),
        sa.Column("taker_gave", sa.JSON(), nullable=True),
        sa.Column("wei", sqlmodel.sql.sqltypes.AutoString(length=78), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tx_hash", "log_index", name="uq_offer_fills_log"),
    )
    with op.batch_alter_table("offer_fills", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_offer_fills_block_number"), ["block_number"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_offer_fills_maker"), ["maker"], unique=False)
        batch_op.create_index(batch_op.f("ix_offer_fills_offer_hash"), ["offer_hash"], unique=False)
        batch_op.create_index(batch_op.f("ix_offer_fills_taker"), ["taker"], unique=False)

    op.create_table(
        "offers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("offer_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("chain_id", sa.Integer(), nullable=False),
        sa.Column("exchange", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("maker", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("taker", sqlmodel.sql.sqltypes.AutoString(length=42), nullable=False),
        sa.Column("asked_wei", sqlmodel.sql.sqltypes.AutoString(length=78), nullable=False),
        sa.Column("expiry", sa.BigInteger(), nullable=False),
        sa.Column("nonce", sqlmodel.sql.sqltypes.AutoString(length=78), nullable=False),
        sa.Column("signature", sa.Text(), nullable=False),
        sa.Column("maker_is_contract", sa.Boolean(), nullable=False),
        sa.Column("given", sa.JSON(), nullable=False),
        sa.Column("asked", sa.JSON(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("status_reason", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("offer_hash"),
    )
    with op.batch_alter_table("offers", schema=None) as batch_op:
        batch_op.create_index("ix_offers_maker_nonce", ["maker", "nonce"], unique=False)
        batch_op.create_index("ix_offers_maker_status", ["maker", "status", "id"], unique=False)
        batch_op.create_index("ix_offers_status_id", ["status", "id"], unique=False)
        batch_op.create_index("ix_offers_status_price", ["status", "asked_wei", "id"], unique=False)
        batch_op.create_index("ix_offers_taker_status", ["taker", "status", "id"], unique=False)

    op.create_table(
        "offer_items",
        sa.Column("offer_id", sa.Integer(), nullable=False),
        sa.Column("side", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("token_id", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("game", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["offer_id"],
            ["offers.id"],
        ),
        sa.PrimaryKeyConstraint("offer_id", "side", "token_id"),
    )
    with op.batch_alter_table("offer_items", schema=None) as batch_op:
        batch_op.create_index("ix_offer_items_card", ["token_id", "side", "offer_id"], unique=False)
        batch_op.create_index("ix_offer_items_game", ["game", "offer_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("offer_items", schema=None) as batch_op:
        batch_op.drop_index("ix_offer_items_game")
        batch_op.drop_index("ix_offer_items_card")

    op.drop_table("offer_items")
    with op.batch_alter_table("offers", schema=None) as batch_op:
        batch_op.drop_index("ix_offers_taker_status")
        batch_op.drop_index("ix_offers_status_price")
        batch_op.drop_index("ix_offers_status_id")
        batch_op.drop_index("ix_offers_maker_status")
        batch_op.drop_index("ix_offers_maker_nonce")

    op.drop_table("offers")
    with op.batch_alter_table("offer_fills", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_offer_fills_taker"))
        batch_op.drop_index(batch_op.f("ix_offer_fills_offer_hash"))
        batch_op.drop_index(batch_op.f("ix_offer_fills_maker"))
        batch_op.drop_index(batch_op.f("ix_offer_fills_block_number"))

    op.drop_table("offer_fills")
