"""Shared column helpers for the models."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time as a naive UTC datetime (what every timestamp column stores)."""
    return datetime.now(UTC).replace(tzinfo=None)
