"""A match row for the repository and migration tests: what `create_match` would store, without
the service."""

from __future__ import annotations

from ledger.db.models import Match


def match_row(match_id: str, created_by: str, status: str = "open") -> Match:
    """A MetaX match by `created_by` with placeholder commitments, in `status`."""
    return Match(
        id=match_id,
        game="metax",
        ruleset_version="r1",
        catalogue_hash="c",
        created_by=created_by,
        operator_commit="0x" + "22" * 32,
        operator_secret="0x" + "33" * 32,
        status=status,
    )
