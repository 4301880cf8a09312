"""${message.capitalize()}."""

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op
${imports if imports else ""}
from ledger.db.migrations import ddl

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
% if branch_labels:
branch_labels = ${repr(branch_labels)}
% endif
% if depends_on:
depends_on = ${repr(depends_on)}
% endif


# Where the revision only creates tables or adds columns, declare it instead:
# upgrade, downgrade = ddl.create_tables(ddl.table(...), ...) or ddl.add_columns({...}).
def upgrade() -> None:
    """Apply this revision."""
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    """Revert this revision."""
    ${downgrades if downgrades else "pass"}
