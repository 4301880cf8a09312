"""`metaledger run|api|worker`: start the local stack or one of its processes."""

from __future__ import annotations


def run() -> None:
    """Start Anvil, deploy, seed, the API and a worker; Ctrl-C stops them."""


def api() -> None:
    """Serve the API."""


def worker() -> None:
    """Run a Celery worker."""
