"""The last decks a game found legal: replays and benchmarks start many matches with one pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from engine.core.game import Deck, plain_deck, same_deck, same_options

T = TypeVar("T")


class LastLegalDecks(Generic[T]):
    """The last pair of decks and options a game checked legal, with what it derived from them.

    Compared by value, with plain int copy counts and options of the same types (True is not
    1), so a lookalike deck is always checked afresh.
    """

    __slots__ = ("_entry",)

    def __init__(self) -> None:
        self._entry: tuple[dict[str, int], dict[str, int], dict[str, Any], T] | None = None

    def get(self, decks: tuple[Deck, Deck], options: Mapping[str, Any]) -> T | None:
        """What was derived from these decks and options, if they are the last legal ones."""
        e = self._entry
        if (
            e is not None
            and same_deck(decks[0], e[0])
            and same_deck(decks[1], e[1])
            and same_options(options, e[2])
        ):
            return e[3]
        return None

    def put(self, decks: tuple[Deck, Deck], options: Mapping[str, Any], derived: T) -> None:
        """Remember decks just checked legal (copies; decks with non-int counts are not kept)."""
        if plain_deck(decks[0]) and plain_deck(decks[1]):
            self._entry = (dict(decks[0]), dict(decks[1]), dict(options), derived)
