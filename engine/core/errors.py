"""Errors raised by the rules engine. Every one names the rule it enforces."""

from __future__ import annotations

from dataclasses import dataclass


class EngineError(Exception):
    """Base of every engine error."""


class IllegalAction(EngineError):
    """An action that the rules do not allow in this state."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken deck-building rule, optionally about one card."""

    rule: str
    message: str
    card: str | None = None


class DeckRejected(EngineError):
    """A deck that breaks one or more deck-building rules; lists every violation."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__("; ".join(f"{v.rule}: {v.message}" for v in violations))
        self.violations = violations


class CatalogueError(EngineError):
    """A card catalogue that does not match its schema."""


class ReplayDiverged(EngineError):
    """A replay whose state hash differs from the recorded checkpoint."""

    def __init__(self, index: int, expected: str, actual: str) -> None:
        super().__init__(
            f"state hash diverged after action {index}: expected {expected}, got {actual}"
        )
        self.index = index
        self.expected = expected
        self.actual = actual


class ReplayRejected(IllegalAction):
    """A transcript action that the engine rejects during replay; names its index."""

    def __init__(self, index: int, rule: str, message: str) -> None:
        super().__init__(rule, f"action {index}: {message}")
        self.index = index


class TranscriptError(EngineError):
    """A transcript that is malformed or does not match this engine (game, versions, catalogue)."""


class ScenarioError(EngineError):
    """A scenario file that is malformed (not a failed expectation: that is a ScenarioResult)."""
