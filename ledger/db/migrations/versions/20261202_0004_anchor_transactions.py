"""anchor transactions: every signed anchor transaction of a batch (replacements included)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "anchor_transactions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sqlmodel.sql.sqltypes.AutoString(length=66), nullable=False),
        sa.Column("raw_tx", sa.Text(), nullable=False),
        sa.Column("max_fee_per_gas", sa.BigInteger(), nullable=False),
        sa.Column("max_priority_fee_per_gas", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tx_hash"),
    )
    with op.batch_alter_table("anchor_transactions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_anchor_transactions_batch_id"), ["batch_id"], unique=False
        )
    # the transaction each batch already recorded is its first attempt
    op.execute(
        "INSERT INTO anchor_transactions (batch_id, nonce, tx_hash, raw_tx, max_fee_per_gas, "
        "max_priority_fee_per_gas, created_at) SELECT id, nonce, tx_hash, raw_tx, 0, 0, "
        "COALESCE(signed_at, created_at) FROM batches WHERE raw_tx IS NOT NULL "
        "AND nonce IS NOT NULL AND tx_hash IS NOT NULL"
    )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("anchor_transactions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_anchor_transactions_batch_id"))
    op.drop_table("anchor_transactions")
