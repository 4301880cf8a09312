"""The MetaMasters card catalogue: `catalogue.json` loaded once, validated, effects compiled."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core.catalogue import CardSchema, Catalogue, Field, load_catalogue
from engine.core.effects import Effect
from engine.core.errors import CatalogueError
from engine.metamasters.effects import TRAITS, fx

if TYPE_CHECKING:
    from engine.metamasters.state import MetaMastersState

ACTOR_TYPES = ("delta", "omega", "sigma")
SPECIAL_TYPES = ("normal", "continuous", "quick")
TARGETS = ("opp_actor", "own_actor", "opp_special")
CONDITIONS = ("trash_at_least", "actors_at_least", "tokens_at_most", "opp_actors_at_least")
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


class CardDef:
    """One card design with its effect compiled (never mutated after load)."""

    __slots__ = (
        "aura",
        "base_ego",
        "base_int",
        "condition",
        "effect",
        "id",
        "index",
        "kind",
        "link_ego",
        "link_int",
        "mark",
        "name",
        "subtype",
        "target",
        "trait",
    )

    def __init__(self, index: int, raw: Mapping[str, Any]) -> None:
        cid: str = raw["id"]
        self.index = index
        self.id = cid
        self.name: str = raw["name"]
        self.kind: int = KINDS.index(raw["kind"])
        self.trait: str = raw.get("trait", "")
        self.subtype = -1
        self.mark = ""
        if self.kind == K_ACTOR:
            self.subtype = ACTOR_TYPES.index(raw["type"])
            self.mark = _MARKS[raw["type"]]
        elif self.kind == K_SPECIAL:
            self.subtype = SPECIAL_TYPES.index(raw["type"])
            self.mark = _MARKS[raw["type"]]
        self.base_ego: int = raw.get("ego", 0)
        self.base_int: int = raw.get("int", 0)
        self.target: str | None = raw.get("target")
        cond = raw.get("condition")
        if self.subtype == T_SIGMA and self.kind == K_ACTOR and not cond:
            raise CatalogueError(
                f"catalogue metamasters: card {cid!r}: a ∑ actor must state its condition"
            )
        if cond and not (self.kind == K_ACTOR and self.subtype == T_SIGMA):
            raise CatalogueError(
                f"catalogue metamasters: card {cid!r}: only ∑ actors have a condition"
            )
        self.condition: tuple[tuple[str, int], ...] = tuple(sorted((cond or {}).items()))
        steps = raw.get("effect", [])
        self.effect: Effect[MetaMastersState] = fx.compile(steps, where=cid)
        self.link_ego = 0
        self.link_int = 0
        #: continuous aura while face-up: (stat 0=EGO 1=INT, amount, side 0=own 1=opponent)
        self.aura: tuple[int, int, int] | None = None
        for step in steps:
            op = step["op"]
            if op == "link_stat":
                if self.kind != K_LINK:
                    raise CatalogueError(
                        f"catalogue metamasters: card {cid!r}: only Links have link_stat"
                    )
                self.link_ego += step.get("ego", 0)
                self.link_int += step.get("int", 0)
            elif op == "aura":
                if not (self.kind == K_SPECIAL and self.subtype == S_CONTINUOUS):
                    raise CatalogueError(
                        f"catalogue metamasters: card {cid!r}: only ∞ Specials have an aura"
                    )
                self.aura = (int(step["stat"] == "int"), step["n"], int(step["side"] == "opp"))
            if step.get("to") == "target" and self.target is None:
                raise CatalogueError(
                    f"catalogue metamasters: card {cid!r}: an effect aimed at 'target' needs a 'target'"
                )
            if step.get("to") == "host" and self.kind != K_LINK:
                raise CatalogueError(
                    f"catalogue metamasters: card {cid!r}: only Links aim at 'host'"
                )


CATALOGUE: Catalogue = load_catalogue("engine.metamasters", "catalogue.json", SCHEMA)
CATALOGUE_HASH = CATALOGUE.hash
CARDS: tuple[CardDef, ...] = tuple(CardDef(i, raw) for i, raw in enumerate(CATALOGUE.cards))
BY_ID: dict[str, CardDef] = {c.id: c for c in CARDS}


def ops_in_use() -> set[str]:
    """Every effect operation used by at least one card of the catalogue."""
    return {op for c in CARDS for op in c.effect.ops}
