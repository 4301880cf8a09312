"""MetaLedger's rules engine: pure, deterministic, one interface for every game."""

from engine.core import Action, GameState, game_names, get_game, new_match
from engine.core.version import ENGINE_VERSION

__all__ = ["ENGINE_VERSION", "Action", "GameState", "game_names", "get_game", "new_match"]
