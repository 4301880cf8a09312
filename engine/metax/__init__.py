"""MetaX TCG (../shared/rules/metax-how-to-play.txt) on the MetaLedger engine."""

from __future__ import annotations

from engine.core.game import Game, Ruleset, register
from engine.metax.cards import CATALOGUE
from engine.metax.determinize import determinize
from engine.metax.encoding import MetaXState
from engine.metax.heuristic import heuristic
from engine.metax.position import from_position, scenario_view
from engine.metax.setup import (
    STARTER_DECKS,
    STARTER_DECKS_REV1,
    check_deck,
    new_match,
    required_tokens,
)

#: every ruleset the engine plays, oldest first (docs/rules-notes.md says what changed)
RULESETS = (
    # engine 1.1.0: team attacks paid their links before the Battle Card's effect
    Ruleset("metax/2018.06-1", 1, CATALOGUE.hash, STARTER_DECKS_REV1, engine_versions=("1.1.0",)),
    # team attacks in the rulebook's order; balanced starter decks
    Ruleset("metax/2018.06-2", 2, CATALOGUE.hash, STARTER_DECKS),
)
RULESET_VERSION = RULESETS[-1].version

GAME = register(
    Game(
        name="metax",
        title="MetaX TCG",
        rulesets=RULESETS,
        cards=CATALOGUE.cards,
        check_deck=check_deck,
        required_tokens=required_tokens,
        start=new_match,
        state_class=MetaXState,
        from_position=from_position,
        scenario_view=scenario_view,
        heuristic=heuristic,
        determinize=determinize,
    )
)

__all__ = ["GAME", "RULESETS", "RULESET_VERSION", "MetaXState"]
