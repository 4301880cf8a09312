"""The MetaVersus WISH catalogue: loaded once from package data, validated, compiled to tables.

Every card (and every character pack) is numbered by its position in `catalogue.json`.
The rules read flat tuples indexed by that number; a card's two states (normal and "+")
are the variants `2 * card` and `2 * card + 1`, each with its own compiled effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core.catalogue import CardSchema, Field, load_catalogue
from engine.core.effects import Effect
from engine.core.errors import CatalogueError
from engine.metaversus.effects import COMPILER, CONDITIONS

if TYPE_CHECKING:
    from engine.metaversus.state import WishState

#: card kinds
CURRENCY, WEAPON, ACTION, PACK = 0, 1, 2, 3
KIND_NAMES = ("currency", "weapon", "action", "character_pack")
DIFFICULTIES = ("easy", "normal", "hard")
#: skill kinds and triggers
ACTIVE, PASSIVE = 0, 1
TRIGGER_NONE, TRIGGER_TURN_START, TRIGGER_BUY = 0, 1, 2
TRIGGERS = {"turn_start": TRIGGER_TURN_START, "buy": TRIGGER_BUY}
#: phases an active skill may name
SKILL_PHASES = ("wish", "action", "buy", "combat", "any")
#: copies of a Market card put in stock when it is revealed
STOCK_COPIES = 6
#: cards of each type a duelist puts in the Market, and market card types per pack
MARKET_PICKS = 4
PACK_MARKET_TYPES = 8

_INT0 = Field("int", min=0)
_EFFECT = Field("list", required=False, items=Field("dict"))
_BELOW = Field("dict", required=False, keys=("if", "n", "effect"))
_PLUS = Field("dict", required=False, keys=("stars", "ap", "value", "damage", "effect", "below"))
_PLAYABLE = {
    "pile": Field("str"),
    "cost": _INT0,
    "count": Field("int", required=False, min=1),
    "pricier": Field("int", required=False, min=0),
    "basic": Field("int", required=False, min=1),
    "effect": _EFFECT,
    "below": _BELOW,
    "plus": _PLUS,
}
SCHEMA = CardSchema(
    common={"id": Field("str", min=1), "name": Field("str", min=1), "kind": Field("str")},
    kinds={
        "currency": {**_PLAYABLE, "value": _INT0},
        "weapon": {**_PLAYABLE, "damage": _INT0},
        "action": {**_PLAYABLE, "ap": _INT0},
        "character_pack": {
            "difficulty": Field("str", choices=DIFFICULTIES),
            "character": Field("str", min=1),
            "hp": Field("int", min=1),
            "max_hp": Field("int", min=1),
            "skill": Field(
                "dict",
                keys=(
                    "name",
                    "type",
                    "trigger",
                    "may",
                    "phase",
                    "uses",
                    "per_turn",
                    "text",
                    "effect",
                ),
            ),
        },
    },
)

CATALOGUE = load_catalogue("engine.metaversus", "catalogue.json", SCHEMA)
CARDS: tuple[Mapping[str, Any], ...] = CATALOGUE.cards
INDEX: dict[str, int] = CATALOGUE.index_of()
N = len(CARDS)
if N > 255:  # zones serialise one byte per card number
    raise CatalogueError("catalogue metaversus: at most 255 cards")
IDS: tuple[str, ...] = tuple(c["id"] for c in CARDS)
NAMES: tuple[str, ...] = tuple(c["name"] for c in CARDS)
KIND: tuple[int, ...] = tuple(KIND_NAMES.index(c["kind"]) for c in CARDS)
COST: tuple[int, ...] = tuple(int(c.get("cost", 0)) for c in CARDS)
REQUIRED: tuple[bool, ...] = tuple(c.get("pile") == "required" for c in CARDS)
#: Wishing Stars to spend for the "+" state (0: the card has no "+" state)
STARS: tuple[int, ...] = tuple(int(c.get("plus", {}).get("stars", 0)) for c in CARDS)
COUNT: tuple[int, ...] = tuple(int(c.get("count", 0)) for c in CARDS)
PRICIER: tuple[int, ...] = tuple(int(c.get("pricier", 0)) for c in CARDS)

REQUIRED_CARDS: tuple[int, ...] = tuple(i for i in range(N) if REQUIRED[i])
NEUTRAL: tuple[int, ...] = tuple(i for i in range(N) if CARDS[i].get("pile") == "neutral")
PACKS: tuple[int, ...] = tuple(i for i in range(N) if KIND[i] == PACK)
BASIC_DECK: tuple[int, ...] = tuple(
    i for i in range(N) for _ in range(int(CARDS[i].get("basic", 0)))
)


def _variant(card: Mapping[str, Any], plus: bool) -> Mapping[str, Any]:
    if not plus:
        return card
    merged = dict(card)
    merged.update(card.get("plus", {}))
    return merged


def _check_gains(decl: list[Any], where: str) -> None:
    for step in decl:
        if isinstance(step, dict) and step.get("op") == "gain":
            target = step.get("card")
            if target not in INDEX or KIND[INDEX[target]] == PACK:
                raise CatalogueError(
                    f"catalogue metaversus: card {where!r}: gain names unknown card {target!r}"
                )


def _compile(card: Mapping[str, Any], where: str) -> Effect[WishState]:
    decl: list[Any] = list(card.get("effect", []))
    below = card.get("below")
    if below is not None:
        cond = below.get("if")
        if cond not in CONDITIONS:
            raise CatalogueError(
                f"catalogue metaversus: card {where!r}: below-the-line condition {cond!r}; "
                f"known: {sorted(CONDITIONS)}"
            )
        decl.append({"op": "below_line", "if": cond, "n": below.get("n", 0)})
        decl.extend(below.get("effect", []))
    _check_gains(decl, where)
    return COMPILER.compile(decl, where)


_EMPTY: Effect[WishState] = Effect("-", ())
AP: list[int] = [0] * (2 * N)
VALUE: list[int] = [0] * (2 * N)
DAMAGE: list[int] = [0] * (2 * N)
#: compiled effects: 2*card (+1 for the "+" state); skills at 2*N + pack card
EFFECTS: list[Effect[WishState]] = [_EMPTY] * (3 * N)
PACK_MARKET: dict[int, tuple[int, ...]] = {p: () for p in PACKS}
PACK_OF: list[int] = [-1] * N

for _i, _c in enumerate(CARDS):
    if KIND[_i] == PACK:
        continue
    _pile = _c["pile"]
    if _pile not in ("required", "neutral"):
        if _pile not in INDEX or KIND[INDEX[_pile]] != PACK:
            raise CatalogueError(
                f"catalogue metaversus: card {_c['id']!r}: pile {_pile!r} is not a pack"
            )
        PACK_OF[_i] = INDEX[_pile]
        PACK_MARKET[INDEX[_pile]] += (_i,)
    if REQUIRED[_i]:
        if "plus" in _c:
            raise CatalogueError(
                f"catalogue metaversus: card {_c['id']!r}: required cards have no '+' state"
            )
        if COUNT[_i] == 0:
            raise CatalogueError(
                f"catalogue metaversus: card {_c['id']!r}: required cards need a count"
            )
    elif "plus" not in _c or STARS[_i] < 1:
        raise CatalogueError(
            f"catalogue metaversus: card {_c['id']!r}: needs a '+' state with stars >= 1"
        )
    for _plus in (0, 1):
        _v = _variant(_c, bool(_plus))
        _k = 2 * _i + _plus
        AP[_k] = int(_v.get("ap", 0))
        VALUE[_k] = int(_v.get("value", 0))
        DAMAGE[_k] = int(_v.get("damage", 0))
        EFFECTS[_k] = _compile(_v, _c["id"] + ("+" if _plus else ""))

SKILL_KIND: list[int] = [ACTIVE] * N
SKILL_TRIGGER: list[int] = [TRIGGER_NONE] * N
SKILL_MAY: list[bool] = [False] * N
SKILL_USES: list[int] = [-1] * N
SKILL_PHASE: list[str] = ["any"] * N
SKILL_PER_TURN: list[bool] = [False] * N
HP: list[int] = [0] * N
MAX_HP: list[int] = [0] * N
DIFFICULTY: list[str] = [""] * N

for _p in PACKS:
    _c = CARDS[_p]
    _s = _c["skill"]
    HP[_p] = _c["hp"]
    MAX_HP[_p] = _c["max_hp"]
    DIFFICULTY[_p] = _c["difficulty"]
    if len(PACK_MARKET[_p]) != PACK_MARKET_TYPES:
        raise CatalogueError(
            f"catalogue metaversus: pack {_c['id']!r}: needs {PACK_MARKET_TYPES} market card types"
        )
    if _s.get("type") == "active":
        SKILL_KIND[_p] = ACTIVE
        _phase = _s.get("phase", "any")
        if _phase not in SKILL_PHASES:
            raise CatalogueError(f"catalogue metaversus: pack {_c['id']!r}: skill phase {_phase!r}")
        SKILL_PHASE[_p] = _phase
        SKILL_PER_TURN[_p] = bool(_s.get("per_turn", False))
    elif _s.get("type") == "passive":
        SKILL_KIND[_p] = PASSIVE
        if _s.get("trigger") not in TRIGGERS:
            raise CatalogueError(
                f"catalogue metaversus: pack {_c['id']!r}: skill trigger {_s.get('trigger')!r}"
            )
        SKILL_TRIGGER[_p] = TRIGGERS[_s["trigger"]]
        SKILL_MAY[_p] = bool(_s.get("may", False))
    else:
        raise CatalogueError(
            f"catalogue metaversus: pack {_c['id']!r}: skill type must be active or passive"
        )
    _uses = _s.get("uses")
    SKILL_USES[_p] = -1 if _uses is None else int(_uses)
    EFFECTS[2 * N + _p] = COMPILER.compile(_s.get("effect", []), _c["id"] + ":skill")

if len(REQUIRED_CARDS) != 6 or len(NEUTRAL) < 8 or len(PACKS) < 4:
    raise CatalogueError(
        "catalogue metaversus: needs 6 required cards, >= 8 neutral types, >= 4 packs"
    )
if {DIFFICULTY[p] for p in PACKS} != set(DIFFICULTIES):
    raise CatalogueError("catalogue metaversus: packs must cover every difficulty")

#: every effect operation the catalogue uses
OPS_IN_USE: frozenset[str] = frozenset(op for e in EFFECTS for op in e.ops) - {"below_line"}


def card_number(card_id: str) -> int:
    """The catalogue number of a card id (KeyError if unknown)."""
    return INDEX[card_id]
