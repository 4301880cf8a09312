"""Persistence: database engines, the one unit of work, the models and their migrations."""

from ledger.db.engine import create_all, dispose_engine, get_engine, make_engine, normalise_url
from ledger.db.unit import (
    DB,
    KeptConnection,
    Transaction,
    after_commit,
    keep_connection,
    keep_on_refusal,
    lean_unit,
    orm,
    run_lean,
    run_unit,
    unit_of_work,
)

__all__ = [
    "DB",
    "KeptConnection",
    "Transaction",
    "after_commit",
    "create_all",
    "dispose_engine",
    "get_engine",
    "keep_connection",
    "keep_on_refusal",
    "lean_unit",
    "make_engine",
    "normalise_url",
    "orm",
    "run_lean",
    "run_unit",
    "unit_of_work",
]
