"""The MetaX catalogue (engine/metax/catalogue.json): its schema, and the immutable card table.

Cards are numbered by their position in the catalogue (the card number, cid). `card_table`
builds the per-card facts the rules read, indexed by card number, once: kinds, stats, costs,
the effects compiled with the vocabulary of effects.py, and the continuous abilities read
from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.catalogue import CardSchema, Catalogue, Field, load_catalogue
from engine.core.effects import Continuous, Effect
from engine.core.errors import CatalogueError
from engine.metax.effects import KINDS, STATS, Board, fx

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

#: a continuous stat bonus a character grants: (stat, n, trait or None, to others only)
Bonus = tuple[int, int, str | None, bool]


@dataclass(frozen=True, slots=True)
class CardTable:
    """Per-card facts of the MetaX catalogue, each a tuple indexed by card number."""

    #: catalogue id -> card number
    cid: Mapping[str, int]
    ids: tuple[str, ...]
    kind: tuple[int, ...]
    #: the card's name (a character's with its subtitle)
    name: tuple[str, ...]
    trait: tuple[str | None, ...]
    #: characters: printed ranks (STR, INT, SPE), 0 = no such stat
    cstats: tuple[tuple[int, int, int], ...]
    #: battle cards: the stats printed on the card (indexes)
    bstats: tuple[tuple[int, ...], ...]
    rank: tuple[int, ...]
    #: characters: MP gained when played; events: MP cost; battle cards: + gain / - cost
    mp: tuple[int, ...]
    effect_kind: tuple[str, ...]
    effect: tuple[Effect[Board] | None, ...]
    #: battle cards with no printed effect
    basic: tuple[bool, ...]
    tko_extra: tuple[int, ...]
    hp_extra: tuple[int, ...]
    bonus: tuple[Bonus | None, ...]


def _facts(card: Mapping[str, Any]) -> dict[str, Any]:
    """The facts of one card (its effect compiled)."""
    kind = KINDS.index(card["kind"])
    decl = card.get("effect")
    effect = fx.compile(decl, where=card["id"]) if decl is not None else None
    facts: dict[str, Any] = {
        "ids": card["id"],
        "kind": kind,
        "name": card["name"] if kind != CHARACTER else f"{card['name']} – {card['subtitle']}",
        "trait": card.get("trait"),
        "cstats": (0, 0, 0),
        "bstats": (),
        "rank": 0,
        "effect": effect,
        "basic": False,
        "tko_extra": 0,
        "hp_extra": 0,
        "bonus": None,
    }
    if kind == CHARACTER:
        stats = card["stats"]
        facts["cstats"] = tuple(stats.get(s, 0) for s in STATS)
        facts["mp"] = card["mp"]
        facts["effect_kind"] = card["effect_kind"]
        for step in effect.steps if effect is not None else ():
            if isinstance(step, Continuous):
                if card["effect_kind"] != CONTINUOUS:
                    raise CatalogueError(
                        f"catalogue metax: card {card['id']!r}: continuous op {step.op!r} "
                        "needs effect_kind 'continuous'"
                    )
                prm = step.params
                if step.op == "tko_resist":
                    facts["tko_extra"] += prm["n"]
                elif step.op == "hp_bonus":
                    facts["hp_extra"] += prm["n"]
                elif step.op == "stat_bonus":
                    facts["bonus"] = (
                        STATS.index(prm["stat"]),
                        prm["n"],
                        prm["trait"],
                        prm["others"],
                    )
    elif kind == EVENT:
        facts["mp"] = card["cost"]
        facts["effect_kind"] = ANY
    else:
        facts["bstats"] = tuple(sorted(STATS.index(s) for s in set(card["stats"])))
        facts["rank"] = card["rank"]
        facts["mp"] = card["mp"]
        facts["effect_kind"] = card.get("effect_kind", ANY)
        facts["basic"] = decl is None
    return facts


def card_table(catalogue: Catalogue) -> CardTable:
    """Build the card table of a validated MetaX catalogue (compiling every effect once)."""
    rows = [_facts(card) for card in catalogue.cards]
    columns = {name: tuple(row[name] for row in rows) for name in rows[0]}
    return CardTable(cid=catalogue.index_of(), **columns)


CATALOGUE = load_catalogue("engine.metax", "catalogue.json", SCHEMA)
CARDS = card_table(CATALOGUE)


def ops_in_use() -> set[str]:
    """Every effect operation used by at least one card of the catalogue."""
    return {op for e in CARDS.effect if e is not None for op in e.ops}
