"""The MetaX catalogue (engine/metax/catalogue.json): schema, load, and per-card tables.

Cards are numbered by their position in the catalogue (cid). The tables below are indexed by
cid and built once at import; the effects are compiled once here too.
"""

from __future__ import annotations

from typing import Any

from engine.core.catalogue import CardSchema, Field, load_catalogue
from engine.core.errors import CatalogueError
from engine.metax.ops import KINDS, STATS, Continuous, fx

# the per-card tables live in engine.metax.tables (so effect operations can read them);
# they are filled below, once, in catalogue order
from engine.metax.tables import (
    BASIC,
    BONUS,
    BSTATS,
    CSTATS,
    EFFECT,
    EFFECT_KIND,
    HP_EXTRA,
    KIND,
    MP,
    NAME,
    RANK,
    TKO_EXTRA,
    TRAIT,
)

CHARACTER, EVENT, BATTLE = 0, 1, 2
STR, INT, SPE = 0, 1, 2
STAT_NAMES = ("Strength", "Intelligence", "Special")
#: character effect kinds (triangle, circle, continuous) and battle card effect kinds
PLAYED, PUSH, CONTINUOUS = "played", "push", "continuous"
ON_ATTACK, ON_DEFENSE, ANY = "attack", "defense", "any"

SCHEMA = CardSchema(
    common={
        "id": Field("str", min=1),
        "kind": Field("str", choices=KINDS),
        "name": Field("str", min=1),
        "text": Field("str", required=False),
        "set": Field("str", required=False),
    },
    kinds={
        "character": {
            "subtitle": Field("str", min=1),
            "trait": Field("str", min=1),
            "stats": Field("dict", keys=STATS, values=Field("int", min=1, max=10), min_items=1),
            "mp": Field("int", min=0, max=10),
            "effect_kind": Field("str", choices=(PLAYED, PUSH, CONTINUOUS)),
            "effect": Field("list", min_items=1),
        },
        "event": {
            "cost": Field("int", min=0, max=10),
            "effect": Field("list", min_items=1),
        },
        "battle": {
            "stats": Field("list", items=Field("str", choices=STATS), min_items=1, max_items=3),
            "rank": Field("int", min=1, max=10),
            "mp": Field("int", min=-10, max=10),
            "effect_kind": Field("str", required=False, choices=(ON_ATTACK, ON_DEFENSE, ANY)),
            "effect": Field("list", required=False, min_items=1),
        },
    },
)

CATALOGUE = load_catalogue("engine.metax", "catalogue.json", SCHEMA)
CARDS = CATALOGUE.cards
CID: dict[str, int] = CATALOGUE.index_of()


def _build() -> None:
    for card in CARDS:
        kind = KINDS.index(card["kind"])
        KIND.append(kind)
        name = card["name"] if kind != CHARACTER else f"{card['name']} – {card['subtitle']}"
        NAME.append(name)
        TRAIT.append(card.get("trait"))
        decl = card.get("effect")
        effect = fx.compile(decl, where=card["id"]) if decl is not None else None
        EFFECT.append(effect)
        tko = hp = 0
        bonus: tuple[int, int, str | None, bool] | None = None
        if kind == CHARACTER:
            stats = card["stats"]
            CSTATS.append(
                (stats.get("strength", 0), stats.get("intelligence", 0), stats.get("special", 0))
            )
            BSTATS.append(())
            RANK.append(0)
            MP.append(card["mp"])
            EFFECT_KIND.append(card["effect_kind"])
            BASIC.append(False)
            for step in effect.steps if effect is not None else ():
                if isinstance(step, Continuous):
                    if card["effect_kind"] != CONTINUOUS:
                        raise CatalogueError(
                            f"catalogue metax: card {card['id']!r}: continuous op {step.op!r} "
                            "needs effect_kind 'continuous'"
                        )
                    if step.op == "tko_resist":
                        tko += step.params["n"]
                    elif step.op == "hp_bonus":
                        hp += step.params["n"]
                    elif step.op == "stat_bonus":
                        prm = step.params
                        bonus = (STATS.index(prm["stat"]), prm["n"], prm["trait"], prm["others"])
        elif kind == EVENT:
            CSTATS.append((0, 0, 0))
            BSTATS.append(())
            RANK.append(0)
            MP.append(card["cost"])
            EFFECT_KIND.append(ANY)
            BASIC.append(False)
        else:
            CSTATS.append((0, 0, 0))
            BSTATS.append(tuple(sorted(STATS.index(s) for s in set(card["stats"]))))
            RANK.append(card["rank"])
            MP.append(card["mp"])
            EFFECT_KIND.append(card.get("effect_kind", ANY))
            BASIC.append(decl is None)
        TKO_EXTRA.append(tko)
        HP_EXTRA.append(hp)
        BONUS.append(bonus)


_build()


__all__ = [
    "ANY",
    "BASIC",
    "BATTLE",
    "BONUS",
    "BSTATS",
    "CARDS",
    "CATALOGUE",
    "CHARACTER",
    "CID",
    "CONTINUOUS",
    "CSTATS",
    "EFFECT",
    "EFFECT_KIND",
    "EVENT",
    "HP_EXTRA",
    "INT",
    "KIND",
    "MP",
    "NAME",
    "ON_ATTACK",
    "ON_DEFENSE",
    "PLAYED",
    "PUSH",
    "RANK",
    "SCHEMA",
    "SPE",
    "STAT_NAMES",
    "STR",
    "TKO_EXTRA",
    "TRAIT",
]


def ops_in_use() -> set[str]:
    """Every effect operation used by at least one catalogue card."""
    return {op for e in EFFECT if e is not None for op in e.ops}


def card_summary(cid: int) -> dict[str, Any]:
    """The catalogue entry of a card number."""
    return dict(CARDS[cid])
