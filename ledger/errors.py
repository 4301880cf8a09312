"""The one exception tree of MetaLedger. The API renders each as RFC 9457 problem+json;
the CLI prints it as one line."""

from __future__ import annotations

from typing import Any, ClassVar


class MetaLedgerError(Exception):
    """Base of every error the services raise on purpose."""

    status: ClassVar[int] = 500
    slug: ClassVar[str] = "internal-error"
    title: ClassVar[str] = "Internal error"

    def __init_subclass__(
        cls,
        *,
        status: int | None = None,
        slug: str | None = None,
        title: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Declare a problem type as `class X(Base, status=..., slug=..., title=...)`; what a
        subclass does not name it keeps from its base."""
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if slug is not None:
            cls.slug = slug
        if title is not None:
            cls.title = title

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


class ConfigurationError(MetaLedgerError, slug="configuration", title="Configuration error"):
    """Settings, keys or a deployment file that cannot be used."""


class ToolchainMissing(MetaLedgerError, slug="toolchain-missing", title="Toolchain missing"):
    """A required external tool (node, npm, anvil, solc) is not installed."""


class ServiceUnavailable(
    MetaLedgerError, status=503, slug="service-unavailable", title="Service unavailable"
):
    """A backing service (chain, database, broker) does not answer."""


class ChainError(MetaLedgerError, status=502, slug="chain-error", title="Chain error"):
    """The chain rejected or failed a call or transaction."""


class InvalidInput(MetaLedgerError, status=422, slug="invalid-input", title="Invalid input"):
    """Input with the wrong shape or value; names the field."""


class RuleViolation(MetaLedgerError, status=422, slug="rule-violation", title="Rule violation"):
    """The rules engine refused a deck or an action; names the rule."""


class Unauthorized(MetaLedgerError, status=401, slug="unauthorized", title="Unauthorized"):
    """No valid session, or a failed sign-in."""


class Forbidden(MetaLedgerError, status=403, slug="forbidden", title="Forbidden"):
    """A valid session acting on something that is not theirs."""


class NotFound(MetaLedgerError, status=404, slug="not-found", title="Not found"):
    """An id that names nothing."""


class Conflict(MetaLedgerError, status=409, slug="conflict", title="Conflict"):
    """A request that conflicts with the current state (stale turn, double commit...)."""


class PayloadTooLarge(
    MetaLedgerError, status=413, slug="payload-too-large", title="Payload too large"
):
    """A request body or a bundle over its size limit; names the limit."""


class RateLimited(MetaLedgerError, status=429, slug="rate-limited", title="Too many requests"):
    """Too many requests from one client address in the current window."""

    def __init__(self, detail: str, retry_after: int, **extra: Any) -> None:
        super().__init__(detail, retry_after=retry_after, **extra)
        self.retry_after = retry_after


# -- refusals of the features (each a problem+json type of its own) --------------------------


class NotOwned(Conflict, slug="not-owned", title="Cards not owned"):
    """Cards a deck needs that its owner does not hold (free of other live matches) at the pinned block."""


class CopiesCommitted(
    Conflict, slug="copies-committed", title="Copies already committed to another live match"
):
    """Copies already committed to the owner's other live matches."""


class OwnershipChanged(
    Conflict, slug="ownership-changed", title="Ownership changed before the match started"
):
    """Cards transferred away between the deck commitment and the match start."""


class OfferNotFillable(Conflict, slug="offer-not-fillable", title="Offer cannot be filled"):
    """An offer that could not be filled as it stands (nonce used, cards or approval missing,
    not open any more); names the field and the reason."""


class DeckRejected(
    RuleViolation, slug="deck-rejected", title="Deck breaks the deck-building rules"
):
    """A deck that breaks the game's deck-building rules (lists every violation)."""


class IllegalMove(RuleViolation, slug="illegal-action", title="Illegal action"):
    """An action the engine refused; names the rule."""


class StaleTurn(Conflict, slug="stale-turn", title="Stale turn"):
    """An action for a match version that is no longer current (someone moved first)."""


class OutOfTurn(Conflict, slug="out-of-turn", title="Not your turn"):
    """An action by a player whose turn it is not."""


class MatchNotActive(Conflict, slug="match-not-active", title="Match not in the right state"):
    """An operation the match's current status does not allow (possibly just ended by timeout)."""
