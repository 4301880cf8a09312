"""The api benchmark (not built yet)."""

from __future__ import annotations

from typing import Any

from ledger.errors import MetaLedgerError


def run(**options: Any) -> dict[str, Any]:
    """Run the benchmark and return its figures."""
    raise MetaLedgerError("the api benchmark is not built yet")
