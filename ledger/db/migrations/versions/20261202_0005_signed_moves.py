"""signed moves: seat authorizations, entry hashes, receipts, projected entries

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _hex(length: int) -> sqlmodel.sql.sqltypes.AutoString:
    return sqlmodel.sql.sqltypes.AutoString(length=length)


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("genesis_hash", _hex(66), nullable=True))
        batch_op.add_column(sa.Column("head_hash", _hex(66), nullable=True))
        batch_op.add_column(sa.Column("forfeit_entry", sa.JSON(), nullable=True))
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_key", _hex(42), nullable=True))
        batch_op.add_column(sa.Column("authorization_expiry", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("authorization", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("end_acknowledgement", _hex(132), nullable=True))
    with op.batch_alter_table("match_actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("move", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("salt", _hex(66), nullable=True))
        batch_op.add_column(sa.Column("signature", _hex(132), nullable=True))
        batch_op.add_column(sa.Column("entry_hash", _hex(66), nullable=True))
        batch_op.add_column(sa.Column("receipt", _hex(132), nullable=True))
        batch_op.add_column(sa.Column("views", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("match_actions", schema=None) as batch_op:
        for name in ("views", "receipt", "entry_hash", "signature", "salt", "move"):
            batch_op.drop_column(name)
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        for name in ("end_acknowledgement", "authorization", "authorization_expiry", "session_key"):
            batch_op.drop_column(name)
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("forfeit_entry")
        batch_op.drop_column("head_hash")
        batch_op.drop_column("genesis_hash")
