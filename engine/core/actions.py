"""Actions: small immutable values that serialise to a JSON list `[kind, *args]`."""

from __future__ import annotations

from typing import Any, NamedTuple


class Action(NamedTuple):
    """One decision: a kind name and integer arguments (instance ids, slots, indexes)."""

    kind: str
    args: tuple[int, ...] = ()

    def to_json(self) -> list[Any]:
        """Return `[kind, *args]`."""
        return [self.kind, *self.args]

    @staticmethod
    def from_json(data: Any) -> Action:
        """Parse `[kind, *args]`; raises ValueError on a malformed value."""
        if not isinstance(data, list) or not data or not isinstance(data[0], str):
            raise ValueError("an action is a JSON list [kind, *int_args]")
        args = data[1:]
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise ValueError("action arguments must be integers")
        return Action(data[0], tuple(args))
