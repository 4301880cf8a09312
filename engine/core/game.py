"""The registry of games the engine hosts, and the one entry point to start a match."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.errors import EngineError, Violation
from engine.core.prng import Prng
from engine.core.state import GameState

#: A deck as given by a player: catalogue card id -> number of copies.
Deck = Mapping[str, int]


@dataclass(frozen=True)
class Game:
    """Everything the rest of the system needs to know about one game."""

    name: str
    title: str
    ruleset_version: str
    #: sha256 hex of the canonical catalogue data
    catalogue_hash: str
    #: catalogue entries as JSON-able dicts, each with at least "id", "name", "kind"
    cards: tuple[Mapping[str, Any], ...]
    #: deck-building rules; returns every violation (empty list: legal)
    check_deck: Callable[[Deck, Mapping[str, Any]], list[Violation]]
    #: the cards a player must own (as tokens) to play this deck: card id -> copies
    required_tokens: Callable[[Deck], dict[str, int]]
    #: start a match: (decks for players 0 and 1, seed, options) -> state
    new_match: Callable[[tuple[Deck, Deck], int, Mapping[str, Any]], GameState]
    state_class: type[GameState]
    #: build a state from a scenario position (see docs/scenarios.md)
    from_position: Callable[[Mapping[str, Any]], GameState]
    #: a flat JSON-able view of a state for scenario expectations
    scenario_view: Callable[[GameState], dict[str, Any]]
    #: greedy-bot evaluation of a state from `player`'s point of view (higher is better); it
    #: reads only what `player` may see: never the opponent's hand, face-down cards or deck order
    heuristic: Callable[[GameState, int], float]
    #: `determinize(state, viewer, prng)`: a state the viewer cannot tell from `state` (same
    #: observation, same legal moves) with everything hidden from them dealt anew from `prng`
    #: (the opponent's hand and face-down cards, deck orders, unrevealed choices, the PRNG)
    determinize: Callable[[GameState, int, Prng], GameState]
    #: two legal starter decks
    starter_decks: tuple[Deck, Deck]
    default_options: Mapping[str, Any] = field(default_factory=dict)
    #: the match options the game accepts, as a JSON Schema object (types, bounds, choices);
    #: services check a new match's options against it before anything else
    option_schema: Mapping[str, Any] = field(default_factory=lambda: NO_OPTIONS)


#: the option schema of a game without options
NO_OPTIONS: Mapping[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


_INT_ONLY = frozenset({int})


def plain_deck(deck: Deck) -> bool:
    """Whether every copy count of `deck` is a plain int (not a bool, float or other type)."""
    return set(map(type, deck.values())) <= _INT_ONLY


def same_deck(deck: Deck, known: Deck) -> bool:
    """Whether `deck` is `known` (a `plain_deck`) card for card, with plain int counts."""
    return deck == known and set(map(type, deck.values())) <= _INT_ONLY


def same_options(options: Mapping[str, Any], known: Mapping[str, Any]) -> bool:
    """Whether two option mappings hold the same keys and values, of the same types (True is not 1)."""
    return options == known and all(type(v) is type(known[k]) for k, v in options.items())


_GAMES: dict[str, Game] = {}
_LOADERS: dict[str, str] = {
    "metax": "engine.metax",
    "metamasters": "engine.metamasters",
    "metaversus": "engine.metaversus",
}


def register(game: Game) -> Game:
    """Register a game (called by each game package's `GAME = register(Game(...))`)."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """Return a registered game by name, importing its package on first use."""
    if name not in _GAMES:
        module = _LOADERS.get(name)
        if module is None:
            raise UnknownGame(name)
        __import__(module)
    if name not in _GAMES:
        raise UnknownGame(name)
    return _GAMES[name]


def game_names() -> list[str]:
    """Names of every game the engine hosts."""
    return list(_LOADERS)


def new_match(
    game: str, decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any] | None = None
) -> GameState:
    """Start a match of `game`; decks are checked against the game's deck rules first."""
    g = get_game(game)
    opts = {**g.default_options, **(options or {})}
    return g.new_match(decks, seed, opts)


class UnknownGame(EngineError):
    """A game name the engine does not host."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r}; known: {', '.join(_LOADERS)}")
        self.name = name
