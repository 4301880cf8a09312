"""`metaledger doctor`: what is installed, what is missing, and how to fix it."""

from __future__ import annotations


def doctor() -> None:
    """Check Node, the npm toolchain, Anvil, the database and the broker."""
