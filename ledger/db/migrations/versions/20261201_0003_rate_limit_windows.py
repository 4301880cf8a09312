"""rate limit windows

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "rate_limit_windows",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("window_start", sa.Integer(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "window_start"),
    )
    with op.batch_alter_table("rate_limit_windows", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_rate_limit_windows_window_start"), ["window_start"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("rate_limit_windows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rate_limit_windows_window_start"))
    op.drop_table("rate_limit_windows")
