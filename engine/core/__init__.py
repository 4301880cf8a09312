"""The engine core shared by every game: PRNG, actions, state interface, registry, errors,
effects, catalogues, transcripts, scenarios and bots."""

from engine.core.actions import Action
from engine.core.errors import (
    CatalogueError,
    DeckRejected,
    EngineError,
    IllegalAction,
    ReplayDiverged,
    ReplayRejected,
    ScenarioError,
    TranscriptError,
    Violation,
)
from engine.core.game import Deck, Game, game_names, get_game, new_match, register
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, canonical_json
from engine.core.version import ENGINE_VERSION

__all__ = [
    "ENGINE_VERSION",
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
    "ReplayRejected",
    "ScenarioError",
    "TranscriptError",
    "Violation",
    "canonical_json",
    "game_names",
    "get_game",
    "new_match",
    "register",
]
