"""The named checks of a bundle verification: their names and order, and how each reports."""

from __future__ import annotations

from dataclasses import dataclass

#: the result's end_reason for each way a replay ends
END_REASONS = {
    "rules": "completed",
    "engine-limit": "engine-limit",
    "resign": "resign",
    "timeout": "timeout",
}
#: what format-1 bundles are reported as by the checks of signed transcripts
UNSIGNED = "not applicable: moves not signed by players (format 1)"

CHECKS = (
    "bundle-format",
    "chain-id",
    "eip712-domain",
    "result-digest",
    "signature",
    "merkle-proof",
    "batch-hash-chain",
    "signer-registered",
    "seed-commitments",
    "decks",
    "ownership",
    "transcript-hash",
    "replay",
    "seat-authorizations",
    "player-signatures",
    "players-acknowledged",
    "batch-leaves",
)


@dataclass(frozen=True)
class Check:
    """One named verification step and its outcome; `info` marks a report that is not a
    pass (a check that does not apply, or what stays the operator's word)."""

    name: str
    ok: bool
    detail: str
    info: bool = False


class Informational(Exception):
    """Raised inside a check that has nothing to pass or fail: the message is its report."""


class CheckFailed(Exception):
    """Raised inside a check with the reason it failed."""


def require(condition: bool, reason: str) -> None:
    """Fail the running check with `reason` unless `condition` holds."""
    if not condition:
        raise CheckFailed(reason)
