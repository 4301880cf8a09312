"""The SQLModel tables of MetaLedger, one module per feature.

Importing this package registers every table on `SQLModel.metadata` (the Alembic target)."""

from __future__ import annotations

import importlib

from ledger.db.models.base import utcnow
from ledger.db.models.cards import CardDesign
from ledger.db.models.decks import DeckCommitment
from ledger.db.models.matches import Match, MatchAction, MatchSeat, MatchStatus, TranscriptRow
from ledger.db.models.ratelimits import RateLimitWindow
from ledger.db.models.results import MatchResult, OutboxEntry
from ledger.db.models.wallets import Session, SigninNonce, Wallet

# The workers' tables (anchoring, indexing, heartbeats) and the offer book live beside these.
for _name in ("anchoring", "indexing", "workers", "trading"):
    try:
        importlib.import_module(f"ledger.db.models.{_name}")
    except ModuleNotFoundError as _exc:  # pragma: no cover - only before that work lands
        if _exc.name != f"ledger.db.models.{_name}":
            raise

__all__ = [
    "CardDesign",
    "DeckCommitment",
    "Match",
    "MatchAction",
    "MatchResult",
    "MatchSeat",
    "MatchStatus",
    "OutboxEntry",
    "RateLimitWindow",
    "Session",
    "SigninNonce",
    "TranscriptRow",
    "Wallet",
    "utcnow",
]
