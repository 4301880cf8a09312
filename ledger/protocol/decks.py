"""Deck lists: their canonical form and the deck hash the signed result carries (`deck0`,
`deck1`): keccak256 of the canonical JSON `{"cards": {card id: copies, sorted}, "game": game}`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import canonical_json
from ledger.errors import InvalidInput
from ledger.protocol.hexcodec import to_hex
from ledger.protocol.keccak import keccak

MAX_COPIES = 10_000


def canonical_cards(cards: Mapping[str, Any]) -> dict[str, int]:
    """A deck list in canonical form: card id -> positive copies, sorted by card id."""
    if not isinstance(cards, Mapping) or not cards:
        raise InvalidInput("a deck is a non-empty object {card_id: copies}", field="cards")
    out: dict[str, int] = {}
    for card, copies in cards.items():
        if not isinstance(card, str) or not 0 < len(card) <= 64:
            raise InvalidInput(
                f"card id {card!r} must be a string of 1-64 characters", field="cards"
            )
        if not isinstance(copies, int) or isinstance(copies, bool) or not 0 < copies <= MAX_COPIES:
            raise InvalidInput(
                f"copies of {card!r} must be an integer from 1 to {MAX_COPIES}", field="cards"
            )
        out[card] = copies
    return dict(sorted(out.items()))


def deck_hash(game: str, cards: Mapping[str, int]) -> str:
    """keccak256 of the canonical JSON `{"cards": {...}, "game": ...}` (the EIP-712 deck0/deck1)."""
    return to_hex(keccak(canonical_json({"game": game, "cards": dict(sorted(cards.items()))})))
