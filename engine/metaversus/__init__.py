"""MetaVersus WISH on the shared engine: a deck-building duel with a Market and Wishing Stars."""

from __future__ import annotations

from engine.core.game import Ruleset, register_layout
from engine.metaversus import determinize, heuristic, position, setup
from engine.metaversus.cards import CARDS, CATALOGUE, CATALOGUE_REV1_HASH, DIFFICULTIES
from engine.metaversus.encoding import WishState
from engine.metaversus.setup import DEFAULT_OPTIONS, DEFAULT_OPTIONS_REV1, SELECTIONS

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

_STARTERS = (dict(_ALL_PACKS), dict(_ALL_PACKS))

#: every ruleset the engine plays, oldest first (docs/rules-notes.md says what changed)
RULESETS = (
    # engine 1.1.0: the round limit decided a match by HP; its catalogue had no card texts
    Ruleset(
        "wish-guide-1",
        1,
        CATALOGUE_REV1_HASH,
        _STARTERS,
        DEFAULT_OPTIONS_REV1,
        engine_versions=("1.1.0",),
    ),
    # the round limit is a safety cap ending in a draw (an engine limit); bots avoid stalling
    Ruleset("wish-guide-2", 2, CATALOGUE.hash, _STARTERS, DEFAULT_OPTIONS),
)

GAME = register_layout(
    "MetaVersus WISH",
    RULESETS,
    CATALOGUE,
    WishState,
    (setup, position, heuristic, determinize),
    OPTION_SCHEMA,
)

__all__ = ["GAME", "RULESETS", "WishState"]
