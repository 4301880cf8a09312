"""Service-specific members of the one exception tree (ledger.errors), each a problem+json type."""

from __future__ import annotations

from ledger.errors import Conflict, RuleViolation


class NotOwned(Conflict):
    """Cards a deck needs that its owner does not hold (free of other live matches) at the pinned block."""

    slug = "not-owned"
    title = "Cards not owned"


class CopiesCommitted(Conflict):
    """Copies already committed to the owner's other live matches."""

    slug = "copies-committed"
    title = "Copies already committed to another live match"


class OwnershipChanged(Conflict):
    """Cards transferred away between the deck commitment and the match start."""

    slug = "ownership-changed"
    title = "Ownership changed before the match started"


class DeckRejected(RuleViolation):
    """A deck that breaks the game's deck-building rules (lists every violation)."""

    slug = "deck-rejected"
    title = "Deck breaks the deck-building rules"


class IllegalMove(RuleViolation):
    """An action the engine refused; names the rule."""

    slug = "illegal-action"
    title = "Illegal action"


class StaleTurn(Conflict):
    """An action for a match version that is no longer current (someone moved first)."""

    slug = "stale-turn"
    title = "Stale turn"


class OutOfTurn(Conflict):
    """An action by a player whose turn it is not."""

    slug = "out-of-turn"
    title = "Not your turn"


class MatchNotActive(Conflict):
    """An operation the match's current status does not allow (possibly just ended by timeout)."""

    slug = "match-not-active"
    title = "Match not in the right state"
