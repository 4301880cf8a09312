"""MetaX TCG (../shared/rules/metax-how-to-play.txt) on the MetaLedger engine."""

from __future__ import annotations

from engine.core.game import Ruleset, register_layout
from engine.metax import determinize, heuristic, position, setup
from engine.metax.cards import CATALOGUE
from engine.metax.encoding import MetaXState
from engine.metax.setup import STARTER_DECKS, STARTER_DECKS_REV1

#: every ruleset the engine plays, oldest first (docs/rules-notes.md says what changed)
RULESETS = (
    # engine 1.1.0: team attacks paid their links before the Battle Card's effect
    Ruleset("metax/2018.06-1", 1, CATALOGUE.hash, STARTER_DECKS_REV1, engine_versions=("1.1.0",)),
    # team attacks in the rulebook's order; balanced starter decks
    Ruleset("metax/2018.06-2", 2, CATALOGUE.hash, STARTER_DECKS),
)
RULESET_VERSION = RULESETS[-1].version

GAME = register_layout(
    "MetaX TCG", RULESETS, CATALOGUE, MetaXState, (setup, position, heuristic, determinize)
)

__all__ = ["GAME", "RULESETS", "RULESET_VERSION", "MetaXState"]
