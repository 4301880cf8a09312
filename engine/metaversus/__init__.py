"""MetaVersus WISH on the shared engine: a deck-building duel with a Market and Wishing Stars."""

from __future__ import annotations

from engine.core.game import Game, register
from engine.metaversus.cards import CARDS, CATALOGUE, DIFFICULTIES
from engine.metaversus.determinize import determinize
from engine.metaversus.encoding import WishState
from engine.metaversus.heuristic import heuristic
from engine.metaversus.position import from_position, scenario_view
from engine.metaversus.setup import (
    DEFAULT_OPTIONS,
    SELECTIONS,
    check_deck,
    new_match,
    required_tokens,
)

#: both players bring every pack (the basic selection deals 5 character cards each)
_ALL_PACKS = {CARDS.ids[p]: 1 for p in CARDS.packs[:5]}

OPTION_SCHEMA = {
    "type": "object",
    "properties": {
        "selection": {"description": "how characters are chosen", "enum": list(SELECTIONS)},
        "difficulty": {
            "description": "the packs' difficulty (selection `difficulty` only)",
            "enum": [None, *DIFFICULTIES],
        },
        "first_match": {"description": "the new duelist, who starts second", "enum": [None, 0, 1]},
        "max_rounds": {"type": "integer", "minimum": 1, "maximum": 1000},
    },
    "additionalProperties": False,
}

GAME = register(
    Game(
        name="metaversus",
        title="MetaVersus WISH",
        ruleset_version=CATALOGUE.version,
        catalogue_hash=CATALOGUE.hash,
        cards=CATALOGUE.cards,
        check_deck=check_deck,
        required_tokens=required_tokens,
        new_match=new_match,
        state_class=WishState,
        from_position=from_position,
        scenario_view=scenario_view,
        heuristic=heuristic,
        determinize=determinize,
        starter_decks=(dict(_ALL_PACKS), dict(_ALL_PACKS)),
        default_options=dict(DEFAULT_OPTIONS),
        option_schema=OPTION_SCHEMA,
    )
)

__all__ = ["GAME", "WishState"]
