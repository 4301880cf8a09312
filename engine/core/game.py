"""The registry of games the engine hosts, and the one entry point to start a match."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.core.actions import Action
from engine.core.catalogue import Catalogue
from engine.core.errors import EngineError, Violation
from engine.core.prng import Prng
from engine.core.state import GameState

#: A deck as given by a player: catalogue card id -> number of copies.
Deck = Mapping[str, int]


class MatchStarter(Protocol):
    """A game's `new_match`: start a match of one ruleset revision (decks checked first)."""

    def __call__(
        self, decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any], revision: int
    ) -> GameState:
        """Start a match; raise DeckRejected (or another EngineError) for bad decks or options."""
        ...


@dataclass(frozen=True)
class Ruleset:
    """One version of a game's rules, as transcripts and signed results name it.

    A game keeps every ruleset whose transcripts must still replay; new matches use the newest.
    The match state carries `revision`, and the game's one code path branches on it where the
    rules differ.
    """

    version: str
    #: what a match's state carries to tell the rulesets apart (1: the game's first ruleset)
    revision: int
    #: sha256 hex of the canonical catalogue data this ruleset covers (as it was then)
    catalogue_hash: str
    #: two legal starter decks
    starter_decks: tuple[Deck, Deck]
    default_options: Mapping[str, Any] = field(default_factory=dict)
    #: earlier engine versions whose transcripts of this ruleset replay bit for bit (the
    #: current ENGINE_VERSION always does)
    engine_versions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Game:
    """Everything the rest of the system needs to know about one game."""

    name: str
    title: str
    #: every ruleset the engine still plays, oldest first; the last one is used for new matches
    rulesets: tuple[Ruleset, ...]
    #: catalogue entries as JSON-able dicts, each with at least "id", "name", "kind"
    cards: tuple[Mapping[str, Any], ...]
    #: deck-building rules; returns every violation (empty list: legal)
    check_deck: Callable[[Deck, Mapping[str, Any]], list[Violation]]
    #: the cards a player must own (as tokens) to play this deck: card id -> copies
    required_tokens: Callable[[Deck], dict[str, int]]
    #: start a match: (decks for players 0 and 1, seed, options, ruleset revision) -> state
    start: MatchStarter
    state_class: type[GameState]
    #: build a state from a scenario position (see docs/scenarios.md) under a ruleset revision
    from_position: Callable[[Mapping[str, Any], int], GameState]
    #: a flat JSON-able view of a state for scenario expectations
    scenario_view: Callable[[GameState], dict[str, Any]]
    #: greedy-bot evaluation of a state from `player`'s point of view (higher is better); it
    #: reads only what `player` may see: never the opponent's hand, face-down cards or deck order
    heuristic: Callable[[GameState, int], float]
    #: `determinize(state, viewer, prng)`: a state the viewer cannot tell from `state` (same
    #: observation, same legal moves) with everything hidden from them dealt anew from `prng`
    #: (the opponent's hand and face-down cards, deck orders, unrevealed choices, the PRNG)
    determinize: Callable[[GameState, int, Prng], GameState]
    #: the match options the game accepts, as a JSON Schema object (types, bounds, choices);
    #: services check a new match's options against it before anything else
    option_schema: Mapping[str, Any] = field(default_factory=lambda: NO_OPTIONS)
    #: which of the legal actions the bots consider (both bots consult it): a game drops the
    #: moves that only stall a match; it reads only what the current player may see
    bot_preferences: Callable[[GameState, list[Action]], list[Action]] | None = None

    @property
    def ruleset_version(self) -> str:
        """The version of the ruleset new matches use (the newest)."""
        return self.rulesets[-1].version

    @property
    def catalogue_hash(self) -> str:
        """The catalogue hash of the newest ruleset."""
        return self.rulesets[-1].catalogue_hash

    @property
    def starter_decks(self) -> tuple[Deck, Deck]:
        """The starter decks of the newest ruleset."""
        return self.rulesets[-1].starter_decks

    @property
    def default_options(self) -> Mapping[str, Any]:
        """The default match options of the newest ruleset."""
        return self.rulesets[-1].default_options

    def ruleset(self, version: str | None = None) -> Ruleset:
        """The ruleset named `version` (None: the newest); UnknownRuleset if it is not played."""
        if version is None:
            return self.rulesets[-1]
        for r in self.rulesets:
            if r.version == version:
                return r
        raise UnknownRuleset(self.name, version, [r.version for r in self.rulesets])

    def new_match(
        self,
        decks: tuple[Deck, Deck],
        seed: int,
        options: Mapping[str, Any],
        ruleset: str | None = None,
    ) -> GameState:
        """Start a match under `ruleset` (None: the newest) with these options."""
        return self.start(decks, seed, options, self.ruleset(ruleset).revision)


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
    """Register a game (`register_layout` does it for a game folder of the engine's layout)."""
    _GAMES[game.name] = game
    return game


def register_layout(
    title: str,
    rulesets: tuple[Ruleset, ...],
    catalogue: Catalogue,
    state_class: type[GameState],
    modules: tuple[Any, Any, Any, Any],
    option_schema: Mapping[str, Any] = NO_OPTIONS,
) -> Game:
    """Build and register the Game of a game folder laid out as docs/engine.md says, from its
    (setup, position, heuristic, determinize) modules; its name is the catalogue's game."""
    setup, position, heuristic, determinize = modules
    return register(
        Game(
            name=catalogue.game,
            title=title,
            rulesets=rulesets,
            cards=catalogue.cards,
            check_deck=setup.check_deck,
            required_tokens=setup.required_tokens,
            start=setup.new_match,
            state_class=state_class,
            from_position=position.from_position,
            scenario_view=position.scenario_view,
            heuristic=heuristic.heuristic,
            determinize=determinize.determinize,
            option_schema=option_schema,
            bot_preferences=getattr(heuristic, "bot_preferences", None),
        )
    )


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
    game: str,
    decks: tuple[Deck, Deck],
    seed: int,
    options: Mapping[str, Any] | None = None,
    ruleset: str | None = None,
) -> GameState:
    """Start a match of `game` (under `ruleset`, default the newest); decks are checked first."""
    g = get_game(game)
    opts = {**g.ruleset(ruleset).default_options, **(options or {})}
    return g.new_match(decks, seed, opts, ruleset)


class UnknownGame(EngineError):
    """A game name the engine does not host."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r}; known: {', '.join(_LOADERS)}")
        self.name = name


class UnknownRuleset(EngineError):
    """A ruleset version a game does not (or no longer) play."""

    def __init__(self, game: str, version: str, known: list[str]) -> None:
        super().__init__(f"{game} has no ruleset {version!r}; known: {', '.join(known)}")
        self.game = game
        self.version = version
