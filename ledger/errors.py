"""The one exception tree of MetaLedger. The API renders each as RFC 9457 problem+json;
the CLI prints it as one line."""

from __future__ import annotations

from typing import Any, ClassVar


class MetaLedgerError(Exception):
    """Base of every error the services raise on purpose."""

    status: ClassVar[int] = 500
    slug: ClassVar[str] = "internal-error"
    title: ClassVar[str] = "Internal error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def problem(self, instance: str | None = None) -> dict[str, Any]:
        """This error as an RFC 9457 problem details object."""
        body: dict[str, Any] = {
            "type": f"https://metaledger.dev/problems/{self.slug}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }
        if instance:
            body["instance"] = instance
        body.update(self.extra)
        return body


class ConfigurationError(MetaLedgerError):
    """Settings, keys or a deployment file that cannot be used."""

    slug = "configuration"
    title = "Configuration error"


class ToolchainMissing(MetaLedgerError):
    """A required external tool (node, npm, anvil, solc) is not installed."""

    slug = "toolchain-missing"
    title = "Toolchain missing"


class ServiceUnavailable(MetaLedgerError):
    """A backing service (chain, database, broker) does not answer."""

    status = 503
    slug = "service-unavailable"
    title = "Service unavailable"


class ChainError(MetaLedgerError):
    """The chain rejected or failed a call or transaction."""

    status = 502
    slug = "chain-error"
    title = "Chain error"


class InvalidInput(MetaLedgerError):
    """Input with the wrong shape or value; names the field."""

    status = 422
    slug = "invalid-input"
    title = "Invalid input"


class RuleViolation(MetaLedgerError):
    """The rules engine refused a deck or an action; names the rule."""

    status = 422
    slug = "rule-violation"
    title = "Rule violation"


class Unauthorized(MetaLedgerError):
    """No valid session, or a failed sign-in."""

    status = 401
    slug = "unauthorized"
    title = "Unauthorized"


class Forbidden(MetaLedgerError):
    """A valid session acting on something that is not theirs."""

    status = 403
    slug = "forbidden"
    title = "Forbidden"


class NotFound(MetaLedgerError):
    """An id that names nothing."""

    status = 404
    slug = "not-found"
    title = "Not found"


class Conflict(MetaLedgerError):
    """A request that conflicts with the current state (stale turn, double commit...)."""

    status = 409
    slug = "conflict"
    title = "Conflict"


class PayloadTooLarge(MetaLedgerError):
    """A request body or a bundle over its size limit; names the limit."""

    status = 413
    slug = "payload-too-large"
    title = "Payload too large"


class RateLimited(MetaLedgerError):
    """Too many requests from one client address in the current window."""

    status = 429
    slug = "rate-limited"
    title = "Too many requests"

    def __init__(self, detail: str, retry_after: int, **extra: Any) -> None:
        super().__init__(detail, retry_after=retry_after, **extra)
        self.retry_after = retry_after


# -- refusals of the features (each a problem+json type of its own) --------------------------


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


class OfferNotFillable(Conflict):
    """An offer that could not be filled as it stands (nonce used, cards or approval missing,
    not open any more); names the field and the reason."""

    slug = "offer-not-fillable"
    title = "Offer cannot be filled"


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
