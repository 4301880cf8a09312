"""The interface every game's match state implements (in the spirit of OpenSpiel)."""

from __future__ import annotations

import hashlib
import json
import struct
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from engine.core.actions import Action
from engine.core.errors import IllegalAction, ReplayRejected

#: `current_player` once the match is over.
TERMINAL = -1


def canonical_json(data: Any) -> bytes:
    """Serialise JSON-able data canonically (sorted keys, no spaces, UTF-8)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


_INT64: dict[int, struct.Struct] = {}
_U64X4 = struct.Struct("<4Q")


def pack_ints(values: Sequence[int]) -> bytes:
    """Each integer as 8 bytes, little-endian two's complement (the state-hash encoding).

    Raises struct.error for a value outside the signed 64-bit range (never silently truncates).
    """
    n = len(values)
    packer = _INT64.get(n)
    if packer is None:
        if len(_INT64) > 4096:
            _INT64.clear()
        packer = _INT64[n] = struct.Struct(f"<{n}q")
    return packer.pack(*values)


def pack_prng(words: Sequence[int]) -> bytes:
    """The four 64-bit PRNG state words, each as 8 bytes little-endian unsigned."""
    return _U64X4.pack(*words)


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

    def apply_actions(self, actions: Sequence[Sequence[Any]], start: int, stop: int) -> None:
        """Apply `actions[start:stop]`, each in transcript form `[kind, *args]`, validating each
        exactly as `apply` does (replay's loop).

        An illegal action raises ReplayRejected(index, rule, message), the actions before it
        applied and the state otherwise untouched. A game may override this with a loop that
        skips building `Action` values; it must accept and reject exactly what `apply` does.
        """
        apply = self.apply
        new_action = tuple.__new__  # builds the NamedTuple without its Python-level __new__
        for i, raw in enumerate(actions[start:stop], start):
            try:
                apply(new_action(Action, (raw[0], tuple(raw[1:]))))
            except IllegalAction as exc:
                raise ReplayRejected(i, exc.rule, f"{list(raw)!r}: {exc.message}") from exc

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

    @abstractmethod
    def hash_bytes(self) -> bytes:
        """A compact, deterministic, injective binary encoding of the whole state.

        It carries exactly the information of `to_json()` (so `from_json(to_json())` and
        `clone()` encode identically), laid out as the game documents: fixed-size fields, then
        variable-length lists each preceded by its length, integers packed by `pack_ints`
        (8-byte little-endian) and the PRNG words by `pack_prng`. Same bytes on every platform
        and in every process.
        """

    def state_hash(self) -> str:
        """SHA-256 (hex) of `hash_bytes()`, the compact encoding of the whole state."""
        return hashlib.sha256(self.hash_bytes()).hexdigest()
