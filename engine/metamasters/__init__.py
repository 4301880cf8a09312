"""MetaMasters TCG on the shared engine: registers the `metamasters` Game."""

from engine.core.game import Ruleset, register_layout
from engine.metamasters import determinize, heuristic, position, setup
from engine.metamasters.cards import CATALOGUE
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.setup import DEFAULT_OPTIONS, STARTER_DECKS, STARTER_DECKS_REV1

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

GAME = register_layout(
    "MetaMasters TCG",
    RULESETS,
    CATALOGUE,
    MetaMastersState,
    (setup, position, heuristic, determinize),
    OPTION_SCHEMA,
)

__all__ = ["GAME", "RULESETS", "RULESET_VERSION", "MetaMastersState"]
