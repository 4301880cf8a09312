"""The engine core shared by every game: PRNG, actions, state interface, registry, errors."""

from engine.core.actions import Action
from engine.core.errors import (
    CatalogueError,
    DeckRejected,
    EngineError,
    IllegalAction,
    ReplayDiverged,
    Violation,
)
from engine.core.game import Deck, Game, game_names, get_game, new_match, register
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, canonical_json

__all__ = [
    "TERMINAL",
    "Action",
    "CatalogueError",
    "Deck",
    "DeckRejected",
    "EngineError",
    "Game",
    "GameState",
    "IllegalAction",
    "Prng",
    "ReplayDiverged",
    "Violation",
    "canonical_json",
    "game_names",
    "get_game",
    "new_match",
    "register",
]
