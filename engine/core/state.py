"""The interface every game's match state implements (in the spirit of OpenSpiel)."""

from __future__ import annotations

import hashlib
import json
import struct
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from operator import length_hint
from typing import Any, ClassVar, Self, TypeVar

from engine.core.actions import Action
from engine.core.errors import IllegalAction, ReplayRejected

#: `current_player` once the match is over.
TERMINAL = -1
#: `win` of a match the engine's safety cap ended (a draw: no rule of the game ended it)
ENGINE_LIMIT = -2

#: who reads a projection: player 0 or 1, or None for a spectator (who sees neither hand)
Viewer = int | None
#: the readers every log entry is projected for, in the order `project_all` returns them
VIEWERS: tuple[Viewer, ...] = (0, 1, None)


#: one encoder for every call (`json.dumps` with these options builds a new one per call)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(data: Any) -> bytes:
    """Serialise JSON-able data canonically (sorted keys, no spaces, UTF-8)."""
    return _CANONICAL.encode(data).encode()


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


Cloned = TypeVar("Cloned")


def field_copier(
    *,
    shared: str = "",
    copied: str = "",
    paired: str = "",
    cloned: str = "",
    by_hand: str = "",
    then: Callable[[Any, Any], None] | None = None,
) -> Callable[[Cloned], Cloned]:
    """A state's `clone`, copying its slots field by field: each argument names fields (words
    separated by spaces) by how they are copied. `shared`: the same object (a number, a string,
    a table no move changes); `copied`: a flat list, copied; `paired`: one list per player, each
    copied; `cloned`: an object with its own `clone()`; `by_hand`: the fields `then(state,
    copy)` copies once the others are.

    The copy is written out as one assignment a field, as a hand-written clone is (a loop of
    getattr/setattr over the names costs three times as much); its `fields` attribute is every
    field named, which a test checks against the state's slots."""
    names = " ".join((shared, copied, paired, cloned, by_hand)).split()
    if not all(name.isidentifier() for name in names) or len(set(names)) != len(names):
        raise ValueError(f"field names must be distinct identifiers: {names}")
    if bool(by_hand.split()) != (then is not None):
        raise ValueError("by_hand names the fields `then` copies: give both or neither")
    kinds = {
        "self.{0}": shared,
        "self.{0}[:]": copied,
        "[self.{0}[0][:], self.{0}[1][:]]": paired,
        "self.{0}.clone()": cloned,
    }
    lines = ["def clone(self):", "    c = object.__new__(type(self))"]
    lines += [
        f"    c.{name} = {form.format(name)}"
        for form, group in kinds.items()
        for name in group.split()
    ]
    lines += ["    then(self, c)"] if then is not None else []
    namespace: dict[str, Any] = {"then": then}
    exec("\n".join([*lines, "    return c\n"]), namespace)  # source: the names, identifiers
    clone: Callable[[Cloned], Cloned] = namespace["clone"]
    clone.fields = frozenset(names)  # type: ignore[attr-defined]
    return clone


class GameState(ABC):
    """A match in progress. `apply` mutates in place; `clone` gives an independent copy.

    Players are 0 and 1. Every decision is the top prompt of an explicit stack of pending
    choices held in the state, so a state can be saved and resumed between any two choices.

    Each game implements it in three layers, one module each: `state.py` (the match's data,
    what happens to it and the turn's flow), `moves.py` (the actions a player may take:
    `legal_actions` and `_apply`) and `encoding.py` (JSON, hash, observations, labels; the
    class the game registers). See docs/engine.md, "Adding a game".
    """

    __slots__ = ("over", "rev", "win")

    #: the game's registry name, e.g. "metax"
    game: ClassVar[str]
    #: whether the match has ended
    over: bool
    #: the winning player once over; -1 while running (and on a draw), ENGINE_LIMIT for a
    #: draw the engine's safety cap decided
    win: int
    #: the revision of the ruleset the match follows (`Ruleset.revision`; 1 = the first)
    rev: int

    @property
    @abstractmethod
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL when the match is over."""

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.over

    @property
    def winner(self) -> int | None:
        """The winning player (0 or 1) once over; None while running or on a draw."""
        return self.win if self.over and self.win >= 0 else None

    @property
    def ended_by_engine_limit(self) -> bool:
        """Whether the match ended at the engine's safety cap (a draw) rather than by a rule."""
        return self.over and self.win == ENGINE_LIMIT

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action for `current_player`, in a deterministic order."""

    def apply(self, action: Action) -> None:
        """Apply one action; raise IllegalAction naming the rule if it is not legal.

        A rejected action leaves the state unchanged.
        """
        self._apply_each(((action[0], *action[1]),))

    def apply_actions(self, actions: Sequence[Sequence[Any]], start: int, stop: int) -> None:
        """Apply `actions[start:stop]`, each in transcript form `[kind, *args]` (replay's loop).

        The same `_apply_each` as `apply`. An illegal action raises ReplayRejected(index, rule,
        message), the actions before it applied and the state otherwise untouched.
        """
        todo = iter(actions[start:stop])
        try:
            self._apply_each(todo)
        except IllegalAction as exc:
            # the rules take one action at a time from `todo`: the illegal one is the last taken
            i = min(stop, len(actions)) - length_hint(todo) - 1
            raise ReplayRejected(i, exc.rule, f"{list(actions[i])!r}: {exc.message}") from exc

    @abstractmethod
    def _apply_each(self, actions: Iterable[Sequence[Any]]) -> None:
        """The game's rules: validate and apply each action `[kind, *args]`, in order.

        The one code path of every action: `apply` runs it on a batch of one, `apply_actions`
        (replay) on a transcript's actions, so what a replay accepts is exactly what play
        accepts. It raises IllegalAction at the first illegal action, which it leaves unapplied
        (and the state as that action found it), and takes the next action from `actions` only
        after applying the one before.
        """

    def card_count(self) -> int | None:
        """The number of cards in the match, which no action changes (None: not settled yet)."""
        return None

    def invariant_breaks(self) -> list[str]:
        """What is inconsistent in this state (empty: nothing); each game checks its own zones."""
        return []

    @abstractmethod
    def label(self, action: Action) -> str:
        """The referee's description of an action in this state (for transcripts and the CLI).

        What a player or a spectator may read of an action is `project(action, viewer)`.
        """

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
    def observation(self, viewer: Viewer) -> dict[str, Any]:
        """Everything `viewer` (a player, or None for a spectator) may see, as JSON-able data.

        The engine's information boundary (with `project`, `legal_moves` and `resolve`): what
        a reader may see of the cards is decided here (each game's encoding.py), never by a
        caller picking fields of the state. It never holds a hand but the viewer's own, a
        face-down card of the opponent, the order of any deck or a simultaneous choice the
        other player has not answered yet, and it names cards by public ids (see
        docs/engine.md, "What a reader sees"): the viewer's own cards by instance id, every
        other card by its place. `tests/engine/test_engine_hidden.py` checks, for every
        game, that re-dealing what `viewer` may not see leaves it unchanged.
        """

    @abstractmethod
    def project(self, action: Action, viewer: Viewer) -> dict[str, Any]:
        """The log entry of `action` as `viewer` may read it: `{"label": str, "action": list |
        None}`, computed in this state (the one `action` is applied to).

        `action` is `[kind, *args]` in the viewer's ids: the viewer's own cards by instance
        id, other visible cards by place, and null for a card the viewer could not see before
        the action (the label names it if the action shows it, as playing a card face-up
        does); `action` is None when even its kind is secret (a choice the other player has
        not answered yet). For the acting player it is exactly the move `legal_moves` offered
        and `resolve` maps back to `action`.
        """

    @abstractmethod
    def resolve(self, move: Any, viewer: int) -> Action:
        """The action `viewer` means by `move`, a JSON action in the viewer's ids (one of
        `legal_moves(viewer)`, or anything a client sends).

        Raises IllegalAction (rule `<game>.move.*`) for a malformed move or a card the viewer
        cannot name; the message says nothing the viewer may not see. `apply` then checks the
        action against the rules.
        """

    def legal_moves(self, viewer: Viewer) -> list[dict[str, Any]]:
        """The viewer's legal actions as `{"label", "action"}` in the viewer's ids (the order
        of `legal_actions`); empty when the viewer is not the player to act."""
        if viewer is None or self.over or viewer != self.current_player:
            return []
        project = self.project
        return [project(a, viewer) for a in self.legal_actions()]

    def project_all(self, action: Action) -> tuple[dict[str, Any], ...]:
        """`project(action, viewer)` for each of VIEWERS: player 0, player 1, a spectator."""
        return tuple(self.project(action, v) for v in VIEWERS)

    def apply_move(self, move: Any, viewer: int) -> tuple[Action, tuple[dict[str, Any], ...]]:
        """Resolve a move sent by `viewer`, project it for every reader, then apply it.

        Returns the real action (for the transcript) and its entries (`project_all`). Raises
        IllegalAction if it is not the viewer's turn, the move names nothing the viewer can
        see or the rules refuse it, with a message that reveals no hidden card; the state is
        then unchanged.
        """
        if self.over or viewer != self.current_player:
            raise IllegalAction(
                f"{self.game}.move.not-your-turn", f"it is not player {viewer}'s turn"
            )
        action = self.resolve(move, viewer)
        entries = self.project_all(action)
        self.apply(action)
        return action, entries

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
