"""Prepared statements for the hot path: a SQLAlchemy Core statement compiled once per dialect
and run straight on the DB-API cursor of the unit of work's own transaction.

SQLAlchemy's ORM and even a Core `execute` spend 40–140 µs per statement (cache keys, execution
contexts, result wrappers) on work that is the same for every move; here the SQL text, the order
of its parameters and the column types' own bind and result processors (JSON, timezone-aware
datetimes, booleans) are worked out once, so each execution is the driver call alone and the
values stored are exactly those SQLAlchemy would store. The transaction is the unit of work's
(its ORM Session's or its lean `Transaction`'s): its `BEGIN` (with SQLite's write lock), commit
and rollback stay the unit of work's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import Dialect, bindparam, insert, inspect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, configure_mappers, make_transient_to_detached
from sqlalchemy.orm.attributes import instance_dict
from sqlalchemy.sql import Executable
from sqlmodel.sql.sqltypes import UTCDateTime

from ledger.db.unit import DB, Transaction, orm

Processor = Callable[[Any], Any] | None
T = TypeVar("T")


#: SQLAlchemy's SQLite DATETIME storage format, positional (half the time of `isoformat`)
_SQLITE_TEXT = "%04d-%02d-%02d %02d:%02d:%02d.%06d"


def _utc_bind(dialect: Dialect, general: Processor) -> Processor:
    """The bind processor of a timestamp column with a fast path for the values this code
    writes (aware datetimes in UTC, `utcnow()`): on SQLite the text SQLAlchemy's processor makes
    of them (UTC, no offset, six digits of microseconds), elsewhere the value itself (what its
    `astimezone(UTC)` returns); any other value takes SQLAlchemy's processor."""
    assert general is not None
    if dialect.name == "sqlite":

        def process(value: Any) -> Any:
            if type(value) is datetime and value.tzinfo is UTC:
                return _SQLITE_TEXT % (
                    value.year,
                    value.month,
                    value.day,
                    value.hour,
                    value.minute,
                    value.second,
                    value.microsecond,
                )
            return general(value)

    else:

        def process(value: Any) -> Any:
            if type(value) is datetime and value.tzinfo is UTC:
                return value
            return general(value)

    return process


def _bind_processor(type_: Any, dialect: Dialect, general: Processor) -> Processor:
    """A column type's bind processor for `dialect` (`general`: SQLAlchemy's)."""
    if isinstance(type_, UTCDateTime) and general is not None:
        return _utc_bind(dialect, general)
    return general


class _Compiled:
    """One statement compiled for one dialect."""

    __slots__ = ("binds", "dbapi_error", "fixed", "names", "positional", "results", "sql")

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql: str = compiled.string
        self.positional = bool(dialect.positional)
        self.names: list[str] = list(compiled.positiontup or compiled.binds)
        processors = compiled._bind_processors
        self.binds: list[tuple[str, Processor]] = [
            (n, _bind_processor(compiled.binds[n].type, dialect, processors.get(n)))
            for n in self.names
        ]
        #: the values of binds the statement fixes itself (e.g. SQLite's OFFSET after a LIMIT)
        self.fixed: dict[str, Any] = {
            n: v for n, v in compiled.construct_params(_check=False).items() if v is not None
        }
        self.results: list[Processor] = [
            column[3]._cached_result_processor(dialect, None) for column in compiled._result_columns
        ]
        self.dbapi_error: type[Exception] = dialect.loaded_dbapi.Error

    def parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        """The driver's parameters for `values` (by bind name), through the bind processors."""
        if self.fixed:
            values = {**self.fixed, **values}
        out = [values[n] if p is None else p(values[n]) for n, p in self.binds]
        return out if self.positional else dict(zip(self.names, out, strict=True))

    def row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        """A result row through the result processors."""
        return tuple(v if p is None else p(v) for p, v in zip(self.results, raw, strict=True))


class Prepared:
    """A Core statement whose bind parameters are all `bindparam`s, compiled on first use per
    dialect and executed on the unit of work's connection (in its transaction)."""

    __slots__ = ("_compiled", "statement")

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def _cursor(self, db: DB) -> tuple[_Compiled, Any, Dialect]:
        """The compiled statement, a new cursor of the unit's connection and its dialect."""
        if isinstance(db, Transaction):
            dialect, dbapi = db.dialect, db.driver
        else:
            connection = db.connection()
            dialect, dbapi = connection.dialect, connection.connection.driver_connection
        compiled = self._compiled.get(dialect.name)
        if compiled is None:
            compiled = self._compiled[dialect.name] = _Compiled(self.statement, dialect)
        assert dbapi is not None
        return compiled, dbapi.cursor(), dialect

    def _run(
        self,
        db: DB,
        values: Any,
        fetch: Callable[[Any, _Compiled], T],
        *,
        many: bool = False,
    ) -> T:
        """Execute with `values` (`many`: once per mapping of them), then `fetch(cursor,
        compiled)`; a driver error raised as SQLAlchemy's (IntegrityError, OperationalError ...),
        as `execute` would. (Plain try/finally: a context manager's generator costs more than
        the statement here.)"""
        compiled, cursor, dialect = self._cursor(db)
        try:
            if many:
                cursor.executemany(compiled.sql, [compiled.parameters(v) for v in values])
            else:
                cursor.execute(compiled.sql, compiled.parameters(values))
            return fetch(cursor, compiled)
        except compiled.dbapi_error as exc:
            raise DBAPIError.instance(
                compiled.sql, None, exc, compiled.dbapi_error, dialect=dialect
            ) from exc
        finally:
            cursor.close()

    def execute(self, db: DB, values: Mapping[str, Any]) -> int:
        """Run the statement once; the number of rows it changed."""
        return self._run(db, values, _rowcount)

    def execute_many(self, db: DB, rows: Iterable[Mapping[str, Any]]) -> None:
        """Run the statement once per row of values."""
        self._run(db, rows, _nothing, many=True)

    def first(self, db: DB, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first result row (processed as SQLAlchemy would), or None."""
        return self._run(db, values, _first)

    def all(self, db: DB, values: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every result row (processed as SQLAlchemy would)."""
        return self._run(db, values, _all)


def _nothing(_cursor: Any, _compiled: _Compiled) -> None:
    return None


def _rowcount(cursor: Any, _compiled: _Compiled) -> int:
    return int(cursor.rowcount)


def _first(cursor: Any, compiled: _Compiled) -> tuple[Any, ...] | None:
    raw = cursor.fetchone()
    return None if raw is None else compiled.row(raw)


def _all(cursor: Any, compiled: _Compiled) -> list[tuple[Any, ...]]:
    return [compiled.row(raw) for raw in cursor.fetchall()]


def attach(session: Session, model: type[T], values: Mapping[str, Any]) -> T | None:
    """A `model` instance of a row a prepared statement read (`values`: column -> value,
    processed as the ORM would), made persistent in `session` as if the ORM had loaded it: its
    changes flush as UPDATEs, the columns not read load on first access. None if the session
    already holds that row (the caller then reads it through the ORM, which refreshes it)."""
    mapper = inspect(model)
    if not mapper.configured:  # the attributes are instrumented once the mappers are configured
        configure_mappers()
    key = mapper.identity_key_from_primary_key([values[c.key] for c in mapper.primary_key])
    if key in session.identity_map:
        return None
    instance: T = mapper.class_manager.new_instance()
    # what set_committed_value does per column, at once: the values into the instance's dict
    # (make_transient_to_detached then commits them all and expires the columns not read)
    instance_dict(instance).update(values)
    make_transient_to_detached(instance)
    session.add(instance)
    return instance


@cache
def _generated_key(model: type) -> str | None:
    """The attribute of `model`'s autoincrement key column, if its table has one."""
    column: Any = inspect(model).local_table.autoincrement_column
    return None if column is None else str(column.key)


@cache
def _insert_of(model: type, generated: bool) -> tuple[Prepared, tuple[str, ...]]:
    """The INSERT of every column of `model`'s table and the column keys it binds; `generated`:
    without the autoincrement key, which it returns (RETURNING: SQLite and PostgreSQL)."""
    table: Any = inspect(model).local_table
    key = table.autoincrement_column
    keys = tuple(c.key for c in table.c if not (generated and c is key))
    statement: Executable = (
        insert(table).values({k: bindparam(k) for k in keys}).returning(key)
        if generated
        else insert(table)  # every column, bound by its key
    )
    return Prepared(statement), keys


def insert_attached(db: DB, *instances: Any) -> None:
    """Insert new ORM instances (each with every column, as a flush would write them; an
    autoincrement key left None is generated and set) by one prepared INSERT each, in order,
    then make them persistent in the unit's Session as if it had flushed them; the Session's
    pending writes are flushed first. A clash is SQLAlchemy's IntegrityError, as a flush's
    would be."""
    session = orm(db)
    session.flush()
    for instance in instances:
        model: Any = type(instance)
        key = _generated_key(model)
        generated = key is not None and getattr(instance, key) is None
        statement, keys = _insert_of(model, generated)
        values = {name: getattr(instance, name) for name in keys}
        if key is not None and generated:
            row = statement.first(db, values)
            assert row is not None
            setattr(instance, key, row[0])
        else:
            statement.execute(db, values)
    for instance in instances:
        make_transient_to_detached(instance)
        session.add(instance)
