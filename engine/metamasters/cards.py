"""The MetaMasters catalogue (`catalogue.json`): its schema, and the immutable card table.

Cards are numbered by their position in the catalogue. `card_table` builds one `CardDef` per
design, once: its kind and type, stats, target and condition, the effect compiled with the
vocabulary of effects.py, and the continuous parts (a Link's bonus, an ∞ card's aura).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.catalogue import CardSchema, Catalogue, Field, load_catalogue
from engine.core.effects import Effect
from engine.core.errors import CatalogueError
from engine.metamasters.effects import TRAITS, Board, fx

ACTOR_TYPES = ("delta", "omega", "sigma")
SPECIAL_TYPES = ("normal", "continuous", "quick")
TARGETS = ("opp_actor", "own_actor", "opp_special")
CONDITIONS = ("trash_at_least", "actors_at_least", "tokens_at_most", "opp_actors_at_least")
#: the effect operations that are continuous (read while the card is on the field)
CONTINUOUS_OPS = frozenset({"link_stat", "aura"})
_MARKS = {"delta": "∆", "omega": "Ω", "sigma": "∑", "normal": "", "continuous": "∞", "quick": "»"}

K_TOKEN, K_ACTOR, K_LINK, K_SPECIAL = range(4)
KINDS = ("token", "actor", "link", "special")
T_DELTA, T_OMEGA, T_SIGMA = range(3)
S_NORMAL, S_CONTINUOUS, S_QUICK = range(3)

_STAT = Field("int", min=0, max=20)
_EFFECT = Field("list", items=Field("dict"))
_TARGET = Field("str", required=False, choices=TARGETS)

SCHEMA = CardSchema(
    common={
        "id": Field("str", min=1),
        "name": Field("str", min=1),
        "kind": Field("str", choices=KINDS),
        "text": Field("str", required=False),
        "trait": Field("str", required=False, choices=TRAITS),
    },
    kinds={
        "token": {},
        "actor": {
            "type": Field("str", choices=ACTOR_TYPES),
            "ego": _STAT,
            "int": _STAT,
            "target": _TARGET,
            "condition": Field(
                "dict", required=False, keys=CONDITIONS, values=Field("int", min=0), min_items=1
            ),
            "effect": _EFFECT,
        },
        "link": {"target": _TARGET, "effect": _EFFECT},
        "special": {
            "type": Field("str", choices=SPECIAL_TYPES),
            "target": _TARGET,
            "effect": _EFFECT,
        },
    },
)


@dataclass(frozen=True, slots=True)
class CardDef:
    """One card design with its effect compiled."""

    index: int
    id: str
    name: str
    kind: int
    trait: str
    #: actors: T_DELTA, T_OMEGA or T_SIGMA; specials: S_NORMAL, S_CONTINUOUS or S_QUICK; else -1
    subtype: int
    #: the printed mark of the type (∆ Ω ∑, ∞ »), or ""
    mark: str
    base_ego: int
    base_int: int
    target: str | None
    #: a ∑ Actor's condition, as sorted (key, value) pairs
    condition: tuple[tuple[str, int], ...]
    effect: Effect[Board]
    #: a Link's bonus to its Actor
    link_ego: int
    link_int: int
    #: continuous aura while face-up: (stat 0=EGO 1=INT, amount, side 0=own 1=opponent)
    aura: tuple[int, int, int] | None
    #: whether the effect does something when it resolves (a step that is not continuous):
    #: under ruleset 2 such an activation goes on the response chain
    resolves: bool


def card_def(index: int, raw: Mapping[str, Any]) -> CardDef:
    """Check one catalogue entry beyond its schema and compile it (CatalogueError names it)."""
    cid: str = raw["id"]
    kind = KINDS.index(raw["kind"])
    subtype = -1
    mark = ""
    if kind == K_ACTOR:
        subtype = ACTOR_TYPES.index(raw["type"])
        mark = _MARKS[raw["type"]]
    elif kind == K_SPECIAL:
        subtype = SPECIAL_TYPES.index(raw["type"])
        mark = _MARKS[raw["type"]]
    cond = raw.get("condition")
    if subtype == T_SIGMA and kind == K_ACTOR and not cond:
        raise CatalogueError(
            f"catalogue metamasters: card {cid!r}: a ∑ actor must state its condition"
        )
    if cond and not (kind == K_ACTOR and subtype == T_SIGMA):
        raise CatalogueError(f"catalogue metamasters: card {cid!r}: only ∑ actors have a condition")
    target: str | None = raw.get("target")
    steps = raw.get("effect", [])
    effect: Effect[Board] = fx.compile(steps, where=cid)
    link_ego = link_int = 0
    aura: tuple[int, int, int] | None = None
    for step in steps:
        op = step["op"]
        if op == "link_stat":
            if kind != K_LINK:
                raise CatalogueError(
                    f"catalogue metamasters: card {cid!r}: only Links have link_stat"
                )
            link_ego += step.get("ego", 0)
            link_int += step.get("int", 0)
        elif op == "aura":
            if not (kind == K_SPECIAL and subtype == S_CONTINUOUS):
                raise CatalogueError(
                    f"catalogue metamasters: card {cid!r}: only ∞ Specials have an aura"
                )
            aura = (int(step["stat"] == "int"), step["n"], int(step["side"] == "opp"))
        if step.get("to") == "target" and target is None:
            raise CatalogueError(
                f"catalogue metamasters: card {cid!r}: an effect aimed at 'target' needs a 'target'"
            )
        if step.get("to") == "host" and kind != K_LINK:
            raise CatalogueError(f"catalogue metamasters: card {cid!r}: only Links aim at 'host'")
    return CardDef(
        index=index,
        id=cid,
        name=raw["name"],
        kind=kind,
        trait=raw.get("trait", ""),
        subtype=subtype,
        mark=mark,
        base_ego=raw.get("ego", 0),
        base_int=raw.get("int", 0),
        target=target,
        condition=tuple(sorted((cond or {}).items())),
        effect=effect,
        link_ego=link_ego,
        link_int=link_int,
        aura=aura,
        resolves=any(step["op"] not in CONTINUOUS_OPS for step in steps),
    )


def card_table(catalogue: Catalogue) -> tuple[CardDef, ...]:
    """Every card design of a validated catalogue, by card number (compiling every effect once)."""
    return tuple(card_def(i, raw) for i, raw in enumerate(catalogue.cards))


CATALOGUE: Catalogue = load_catalogue("engine.metamasters", "catalogue.json", SCHEMA)
CARDS = card_table(CATALOGUE)
BY_ID: dict[str, CardDef] = {c.id: c for c in CARDS}


def ops_in_use() -> set[str]:
    """Every effect operation used by at least one card of the catalogue."""
    return {op for c in CARDS for op in c.effect.ops}
