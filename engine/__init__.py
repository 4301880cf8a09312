"""MetaLedger's rules engine: pure, deterministic, one interface for every game."""

from engine.core import Action, GameState, game_names, get_game, new_match

ENGINE_VERSION = "1.0.0"

__all__ = ["ENGINE_VERSION", "Action", "GameState", "game_names", "get_game", "new_match"]
