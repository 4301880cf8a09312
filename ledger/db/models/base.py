"""Shared column helpers for the models."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time as an aware UTC datetime (timestamp columns store UTC)."""
    return datetime.now(UTC)
