"""MetaMasters TCG on the shared engine: registers the `metamasters` Game."""

from engine.core.game import Game, Ruleset, register
from engine.metamasters.cards import CATALOGUE
from engine.metamasters.determinize import determinize
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.heuristic import bot_preferences, heuristic
from engine.metamasters.position import from_position, scenario_view
from engine.metamasters.setup import (
    DEFAULT_OPTIONS,
    STARTER_DECKS,
    STARTER_DECKS_REV1,
    check_deck,
    new_match,
    required_tokens,
)

#: every ruleset the engine plays, oldest first (docs/rules-notes.md says what changed)
RULESETS = (
    # engine 1.1.0: responses only after an effect resolved and never chained, a once-per-turn
    # limit on position changes, equal EGO trashed both Actors
    Ruleset(
        "metamasters-1.0",
        1,
        CATALOGUE.hash,
        STARTER_DECKS_REV1,
        DEFAULT_OPTIONS,
        engine_versions=("1.1.0",),
    ),
    # the response chain, position changes and Main 2 as written, ties change nothing;
    # balanced starter decks
    Ruleset("metamasters-1.0-2", 2, CATALOGUE.hash, STARTER_DECKS, DEFAULT_OPTIONS),
)
RULESET_VERSION = RULESETS[-1].version

_TOKENS = {"type": "integer", "minimum": 1, "maximum": 100}
OPTION_SCHEMA = {
    "type": "object",
    "properties": {
        "tokens": {
            "description": "Token cards (HP) per player: one number for both, or [player 0, player 1]",
            "oneOf": [_TOKENS, {"type": "array", "items": _TOKENS, "minItems": 1, "maxItems": 2}],
        },
        "first": {
            "description": "the seat that plays first (default: drawn from the seed)",
            "enum": [0, 1],
        },
    },
    "additionalProperties": False,
}

GAME = register(
    Game(
        name="metamasters",
        title="MetaMasters TCG",
        rulesets=RULESETS,
        cards=CATALOGUE.cards,
        check_deck=check_deck,
        required_tokens=required_tokens,
        start=new_match,
        state_class=MetaMastersState,
        from_position=from_position,
        scenario_view=scenario_view,
        heuristic=heuristic,
        determinize=determinize,
        option_schema=OPTION_SCHEMA,
        bot_preferences=bot_preferences,
    )
)

__all__ = ["GAME", "RULESETS", "RULESET_VERSION", "MetaMastersState"]
