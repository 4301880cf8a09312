"""MetaLedger's rules engine: pure, deterministic, one interface for every game.

This is the engine's only surface: ledger/, api/, workers/ and the tests outside tests/engine
import from here, never from `engine.core.*` or a game's modules.
"""

from engine.core.actions import Action
from engine.core.bots import (
    BOT_NAMES,
    GREEDY_SAMPLES,
    MAX_ACTIONS,
    GreedyBot,
    RandomBot,
    make_bot,
    play_match,
)
from engine.core.card_texts import cards_markdown
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
from engine.core.game import (
    Deck,
    Game,
    Ruleset,
    UnknownGame,
    UnknownRuleset,
    game_names,
    get_game,
    new_match,
)
from engine.core.prng import Prng
from engine.core.scenario import ScenarioResult, run_scenario
from engine.core.state import ENGINE_LIMIT, TERMINAL, VIEWERS, GameState, Viewer, canonical_json
from engine.core.transcript import (
    CHECKPOINT_EVERY,
    FORFEIT_REASONS,
    Recorder,
    ReplayResult,
    Transcript,
    end_reason_of,
    outcome_of,
    replay,
)
from engine.core.version import ENGINE_VERSION

__all__ = [
    "BOT_NAMES",
    "CHECKPOINT_EVERY",
    "ENGINE_LIMIT",
    "ENGINE_VERSION",
    "FORFEIT_REASONS",
    "GREEDY_SAMPLES",
    "MAX_ACTIONS",
    "TERMINAL",
    "VIEWERS",
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
    "Ruleset",
    "ScenarioError",
    "ScenarioResult",
    "Transcript",
    "TranscriptError",
    "UnknownGame",
    "UnknownRuleset",
    "Viewer",
    "Violation",
    "canonical_json",
    "cards_markdown",
    "end_reason_of",
    "game_names",
    "get_game",
    "make_bot",
    "new_match",
    "outcome_of",
    "play_match",
    "replay",
    "run_scenario",
]
