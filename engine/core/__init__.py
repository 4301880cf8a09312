"""The engine core shared by every game: PRNG, actions, state interface, registry, errors,
effects, catalogues, transcripts, scenarios and bots."""

from engine.core.actions import Action
from engine.core.bots import GreedyBot, RandomBot, make_bot, play_match
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
from engine.core.scenario import ScenarioResult, run_scenario
from engine.core.state import TERMINAL, GameState, canonical_json
from engine.core.transcript import Recorder, ReplayResult, Transcript, replay
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
    "GreedyBot",
    "IllegalAction",
    "Prng",
    "RandomBot",
    "Recorder",
    "ReplayDiverged",
    "ReplayRejected",
    "ReplayResult",
    "ScenarioError",
    "ScenarioResult",
    "Transcript",
    "TranscriptError",
    "Violation",
    "canonical_json",
    "game_names",
    "get_game",
    "make_bot",
    "new_match",
    "play_match",
    "register",
    "replay",
    "run_scenario",
]
