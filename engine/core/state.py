"""The interface every game's match state implements (in the spirit of OpenSpiel)."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Self

from engine.core.actions import Action

#: `current_player` once the match is over.
TERMINAL = -1


def canonical_json(data: Any) -> bytes:
    """Serialise JSON-able data canonically (sorted keys, no spaces, UTF-8)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class GameState(ABC):
    """A match in progress. `apply` mutates in place; `clone` gives an independent copy.

    Players are 0 and 1. Every decision is the top prompt of an explicit stack of pending
    choices held in the state, so a state can be saved and resumed between any two choices.
    """

    __slots__ = ()

    #: the game's registry name, e.g. "metax"
    game: ClassVar[str]

    @property
    @abstractmethod
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL when the match is over."""

    @property
    @abstractmethod
    def is_over(self) -> bool:
        """Whether the match has ended."""

    @property
    @abstractmethod
    def winner(self) -> int | None:
        """The winning player (0 or 1) once over; None while running or on a draw."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action for `current_player`, in a deterministic order."""

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Apply one action; raise IllegalAction naming the rule if it is not legal."""

    @abstractmethod
    def label(self, action: Action) -> str:
        """A human-readable description of an action in this state."""

    @abstractmethod
    def clone(self) -> Self:
        """An independent copy (cheap: no deepcopy)."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-able data, including PRNG state and the prompt stack."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""

    @abstractmethod
    def observation(self, player: int) -> dict[str, Any]:
        """What `player` may see: never the opponent's hand, face-down cards or deck order."""

    def state_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of the whole state."""
        return hashlib.sha256(canonical_json(self.to_json())).hexdigest()
