"""The auditor's verifier stands apart from the operator's side: importing it, and running a
whole verification with `metaledger verify`, loads protocol, chain and engine only (no SQLModel,
no database, no feature package, no local stack, no API or workers)."""

from __future__ import annotations

import json
import subprocess
import sys

#: what a verification must never load
FORBIDDEN = (
    "sqlmodel", "sqlalchemy", "alembic", "psycopg", "fastapi", "starlette", "uvicorn", "celery",
    "redis", "web3", "api", "workers", "ledger.db", "ledger.auth", "ledger.ratelimits",
    "ledger.catalogue", "ledger.decks", "ledger.matches", "ledger.results", "ledger.anchoring",
    "ledger.indexing", "ledger.health", "ledger.runtime", "ledger.devstack", "ledger.client",
    "ledger.bench", "ledger.audit.export",
)  # fmt: skip


def forbidden_among(modules: list[str]) -> list[str]:
    """The modules of `modules` that are, or are inside, a FORBIDDEN package."""
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))


def imported_by(importtime_log: str) -> list[str]:
    """The module names of a `python -X importtime` log."""
    return [
        line.rsplit("|", 1)[1].strip()
        for line in importtime_log.splitlines()
        if line.startswith("import time:") and "|" in line and "imported package" not in line
    ]


def test_importing_the_verifier_loads_no_operator_side_module() -> None:
    code = "import json, sys, ledger.audit.verify; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    modules = json.loads(done.stdout)
    assert "ledger.audit.verify" in modules and "ledger.chain.transport" in modules
    assert forbidden_among(modules) == []
