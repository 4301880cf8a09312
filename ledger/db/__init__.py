"""Persistence: database engines, the one unit of work, the models and their migrations."""

from ledger.db.engine import create_all, dispose_engine, get_engine, make_engine, normalise_url
from ledger.db.unit import after_commit, keep_on_refusal, run_unit, unit_of_work

__all__ = [
    "after_commit",
    "create_all",
    "dispose_engine",
    "get_engine",
    "keep_on_refusal",
    "make_engine",
    "normalise_url",
    "run_unit",
    "unit_of_work",
]
