"""MetaMasters TCG on the shared engine: registers the `metamasters` Game."""

from engine.core.game import Game, register
from engine.metamasters.cards import CATALOGUE
from engine.metamasters.determinize import determinize
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.heuristic import heuristic
from engine.metamasters.position import from_position, scenario_view
from engine.metamasters.setup import (
    DEFAULT_OPTIONS,
    STARTER_DECKS,
    check_deck,
    new_match,
    required_tokens,
)

RULESET_VERSION = "metamasters-1.0"

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
        ruleset_version=RULESET_VERSION,
        catalogue_hash=CATALOGUE.hash,
        cards=CATALOGUE.cards,
        check_deck=check_deck,
        required_tokens=required_tokens,
        new_match=new_match,
        state_class=MetaMastersState,
        from_position=from_position,
        scenario_view=scenario_view,
        heuristic=heuristic,
        determinize=determinize,
        starter_decks=STARTER_DECKS,
        default_options=DEFAULT_OPTIONS,
        option_schema=OPTION_SCHEMA,
    )
)

__all__ = ["GAME", "RULESET_VERSION", "MetaMastersState"]
