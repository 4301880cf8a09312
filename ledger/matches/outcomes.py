"""What a move submission produced: the actions applied and what each reader may read of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import GameState
from ledger.db.models import Match
from ledger.matches import signing
from ledger.matches.repository import LiveMatch


@dataclass(frozen=True, slots=True)
class AppliedAction:
    """One action applied in this request: the real action (for the transcript), its signed
    entry, and what each reader may read of it (`views`: player 0's, player 1's, a spectator's)."""

    index: int
    seat: int
    action: list[Any]
    entry: signing.Entry
    views: tuple[dict[str, Any], ...]
    by_bot: bool


@dataclass
class MoveOutcome:
    """What one submission did: the actions applied (the caller's and the bot's replies)."""

    match: Match | LiveMatch
    applied: list[AppliedAction] = field(default_factory=list)
    state: GameState | None = None
