"""The declarations the migration scripts are written in: column shapes, tables, added columns.

A script declares what its revision creates and gets its `upgrade` and `downgrade` from here.
Frozen like the scripts themselves: every revision that used a shape emits its DDL through it, so
changing one changes the history. Add a new shape rather than edit one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

# a column or constraint, built afresh each time a revision runs (SQLAlchemy ties one to a table)
Element = Callable[[], Any]
# an index is a column (named ix_<table>_<column>) or a (name, columns) pair
Index = str | tuple[str, Sequence[str]]
Step = Callable[[], None]


def _column(name: str, kind: Callable[[], Any], nullable: bool, **options: Any) -> Element:
    return lambda: sa.Column(name, kind(), nullable=nullable, **options)


def string(name: str, length: int, *, nullable: bool = False) -> Element:
    """A bounded string column (SQLModel's AutoString, VARCHAR(length))."""
    kind = functools.partial(sqlmodel.sql.sqltypes.AutoString, length=length)
    return _column(name, kind, nullable)


def integer(name: str, *, nullable: bool = False, **options: Any) -> Element:
    """An INTEGER column."""
    return _column(name, sa.Integer, nullable, **options)


def big_integer(name: str, *, nullable: bool = False) -> Element:
    """A BIGINT column."""
    return _column(name, sa.BigInteger, nullable)


def text(name: str, *, nullable: bool = False, **options: Any) -> Element:
    """An unbounded TEXT column."""
    return _column(name, sa.Text, nullable, **options)


def boolean(name: str, *, nullable: bool = False) -> Element:
    """A BOOLEAN column."""
    return _column(name, sa.Boolean, nullable)


def flag(name: str, *, default: bool) -> Element:
    """A NOT NULL BOOLEAN column whose existing rows (and inserts that omit it) get `default`."""
    return _column(name, sa.Boolean, False, server_default=sa.true() if default else sa.false())


def json(name: str, *, nullable: bool = False) -> Element:
    """A JSON column."""
    return _column(name, sa.JSON, nullable)


def timestamp(name: str, *, nullable: bool = False) -> Element:
    """A timezone-aware UTC datetime column (SQLModel's UTCDateTime)."""
    return _column(name, sqlmodel.sql.sqltypes.UTCDateTime, nullable)


def primary_key(*columns: str) -> Element:
    """The table's primary key over `columns`."""
    return lambda: sa.PrimaryKeyConstraint(*columns)


def unique(*columns: str, name: str | None = None) -> Element:
    """A unique constraint over `columns`."""
    return lambda: sa.UniqueConstraint(*columns, name=name)


def references(column: str, target: str) -> Element:
    """A foreign key from `column` to `target` ("table.column")."""
    return lambda: sa.ForeignKeyConstraint([column], [target])


@dataclass(frozen=True)
class Table:
    """A table a revision creates: its columns and constraints in order, then its indexes."""

    name: str
    elements: tuple[Element, ...]
    indexes: tuple[Index, ...] = ()

    def index_names(self) -> list[tuple[str, list[str]]]:
        """Each index's name and columns, in creation order."""
        named = []
        for index in self.indexes:
            if isinstance(index, str):
                named.append((f"ix_{self.name}_{index}", [index]))
            else:
                named.append((index[0], list(index[1])))
        return named

    def create(self) -> None:
        """CREATE TABLE, then CREATE INDEX each index in order."""
        op.create_table(self.name, *(element() for element in self.elements))
        if self.indexes:
            _create_indexes({self.name: self.index_names()})

    def drop(self) -> None:
        """DROP INDEX each index last first, then DROP TABLE."""
        if self.indexes:
            _drop_indexes({self.name: self.index_names()})
        op.drop_table(self.name)


def table(name: str, *elements: Element, indexes: Sequence[Index] = ()) -> Table:
    """Declare a table: its columns and constraints, then its indexes."""
    return Table(name, elements, tuple(indexes))


def create_tables(*tables: Table, then: Sequence[str] = ()) -> tuple[Step, Step]:
    """The (upgrade, downgrade) of a revision that creates `tables` in order, then runs the SQL
    statements `then` (moving data in); the downgrade drops the tables last first."""

    def upgrade() -> None:
        """Create the revision's tables, then move data in."""
        for created in tables:
            created.create()
        for statement in then:
            op.execute(statement)

    def downgrade() -> None:
        """Drop the revision's tables, last first."""
        for created in reversed(tables):
            created.drop()

    return upgrade, downgrade


def add_columns(
    added: Mapping[str, Sequence[Element]],
    *,
    then: Sequence[str] = (),
    indexes: Mapping[str, Sequence[tuple[str, Sequence[str]]]] | None = None,
    dropped_indexes: Mapping[str, Sequence[tuple[str, Sequence[str]]]] | None = None,
) -> tuple[Step, Step]:
    """The (upgrade, downgrade) of a revision that adds columns to existing tables (table →
    its new columns, in order), runs the SQL statements `then` (filling them in), drops
    `dropped_indexes` and creates `indexes` (table → (name, columns) pairs); the downgrade
    undoes each step in reverse order, last table and last column first."""

    def upgrade() -> None:
        """Add the revision's columns, fill them in, replace the indexes."""
        for name, columns in added.items():
            with op.batch_alter_table(name, schema=None) as batch_op:
                for column in columns:
                    batch_op.add_column(column())
        for statement in then:
            op.execute(statement)
        _drop_indexes(dropped_indexes or {})
        _create_indexes(indexes or {})

    def downgrade() -> None:
        """Put the indexes back as they were, then drop the revision's columns, last first."""
        _drop_indexes(indexes or {})
        _create_indexes(dropped_indexes or {})
        for name, columns in reversed(list(added.items())):
            with op.batch_alter_table(name, schema=None) as batch_op:
                for column in reversed(columns):
                    batch_op.drop_column(column().name)

    return upgrade, downgrade


def _create_indexes(indexes: Mapping[str, Sequence[tuple[str, Sequence[str]]]]) -> None:
    """CREATE INDEX each (name, columns) of each table, in order."""
    for name, named in indexes.items():
        with op.batch_alter_table(name, schema=None) as batch_op:
            for index, columns in named:
                batch_op.create_index(batch_op.f(index), list(columns), unique=False)


def _drop_indexes(indexes: Mapping[str, Sequence[tuple[str, Sequence[str]]]]) -> None:
    """DROP INDEX each (name, columns) of each table, last first."""
    for name, named in reversed(list(indexes.items())):
        with op.batch_alter_table(name, schema=None) as batch_op:
            for index, _ in reversed(named):
                batch_op.drop_index(batch_op.f(index))
