"""MetaX TCG (../shared/rules/metax-how-to-play.txt) on the MetaLedger engine."""

from __future__ import annotations

from engine.core.game import Game, register
from engine.metax.cards import CATALOGUE
from engine.metax.determinize import determinize
from engine.metax.encoding import MetaXState
from engine.metax.heuristic import heuristic
from engine.metax.position import from_position, scenario_view
from engine.metax.setup import STARTER_DECKS, check_deck, new_match, required_tokens

RULESET_VERSION = "metax/2018.06-1"

GAME = register(
    Game(
        name="metax",
        title="MetaX TCG",
        ruleset_version=RULESET_VERSION,
        catalogue_hash=CATALOGUE.hash,
        cards=CATALOGUE.cards,
        check_deck=check_deck,
        required_tokens=required_tokens,
        new_match=new_match,
        state_class=MetaXState,
        from_position=from_position,
        scenario_view=scenario_view,
        heuristic=heuristic,
        determinize=determinize,
        starter_decks=STARTER_DECKS,
        default_options={},
    )
)

__all__ = ["GAME", "RULESET_VERSION", "MetaXState"]
