"""The MetaVersus WISH catalogue (`catalogue.json`): its schema, and the immutable card table.

Every card (and every character pack) is numbered by its position in the catalogue. The rules
read the flat tuples of `CardTable`, indexed by that number; a card's two states (normal and
"+") are the variants `2 * card` and `2 * card + 1`, each with its own compiled effect, and a
pack's skill is effect `2 * n + pack` (n cards). `card_table` builds and cross-checks it once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.catalogue import (
    CardSchema,
    Catalogue,
    Field,
    catalogue_hash_as_of,
    load_catalogue,
)
from engine.core.effects import Effect
from engine.core.errors import CatalogueError
from engine.metaversus.effects import COMPILER, CONDITIONS, Board

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
    common={
        "id": Field("str", min=1),
        "name": Field("str", min=1),
        "kind": Field("str"),
        #: the printed text (every card but the character packs, whose skills carry theirs)
        "text": Field("str", required=False, min=1),
    },
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


@dataclass(frozen=True, slots=True)
class CardTable:
    """Per-card facts of the WISH catalogue, by card number (variants and skills: see above)."""

    #: number of cards (and packs)
    n: int
    #: catalogue id -> card number
    index: Mapping[str, int]
    ids: tuple[str, ...]
    names: tuple[str, ...]
    kind: tuple[int, ...]
    cost: tuple[int, ...]
    required: tuple[bool, ...]
    #: Wishing Stars to spend for the "+" state (0: the card has no "+" state)
    stars: tuple[int, ...]
    count: tuple[int, ...]
    pricier: tuple[int, ...]
    required_cards: tuple[int, ...]
    neutral: tuple[int, ...]
    packs: tuple[int, ...]
    basic_deck: tuple[int, ...]
    #: per variant (2 * card + plus)
    ap: tuple[int, ...]
    value: tuple[int, ...]
    damage: tuple[int, ...]
    #: per variant, then the skills at 2 * n + pack
    effects: tuple[Effect[Board], ...]
    #: pack -> its market card types; card -> its pack (-1: required or neutral)
    pack_market: Mapping[int, tuple[int, ...]]
    pack_of: tuple[int, ...]
    #: per pack
    skill_kind: tuple[int, ...]
    skill_trigger: tuple[int, ...]
    skill_may: tuple[bool, ...]
    skill_uses: tuple[int, ...]
    skill_phase: tuple[str, ...]
    skill_per_turn: tuple[bool, ...]
    hp: tuple[int, ...]
    max_hp: tuple[int, ...]
    difficulty: tuple[str, ...]


def _variant(card: Mapping[str, Any], plus: bool) -> Mapping[str, Any]:
    if not plus:
        return card
    merged = dict(card)
    merged.update(card.get("plus", {}))
    return merged


def _compile(
    card: Mapping[str, Any], where: str, index: Mapping[str, int], kind: tuple[int, ...]
) -> Effect[Board]:
    """One variant's effect: its steps, then the dividing line and the text below it."""
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
    for step in decl:
        if isinstance(step, dict) and step.get("op") == "gain":
            target = step.get("card")
            if not isinstance(target, str) or target not in index or kind[index[target]] == PACK:
                raise CatalogueError(
                    f"catalogue metaversus: card {where!r}: gain names unknown card {target!r}"
                )
    return COMPILER.compile(decl, where)


def card_table(catalogue: Catalogue) -> CardTable:
    """Build and cross-check the card table of a validated WISH catalogue (compiling every
    effect once); CatalogueError names the card."""
    cards = catalogue.cards
    n = len(cards)
    if n > 255:  # zones serialise one byte per card number
        raise CatalogueError("catalogue metaversus: at most 255 cards")
    index = catalogue.index_of()
    kind = tuple(KIND_NAMES.index(c["kind"]) for c in cards)
    stars = tuple(int(c.get("plus", {}).get("stars", 0)) for c in cards)
    count = tuple(int(c.get("count", 0)) for c in cards)
    required = tuple(c.get("pile") == "required" for c in cards)
    packs = tuple(i for i in range(n) if kind[i] == PACK)
    empty: Effect[Board] = Effect("-", ())
    ap, value, damage = [0] * (2 * n), [0] * (2 * n), [0] * (2 * n)
    effects = [empty] * (3 * n)
    pack_market: dict[int, tuple[int, ...]] = {p: () for p in packs}
    pack_of = [-1] * n
    for i, c in enumerate(cards):
        if kind[i] == PACK:
            continue
        pile = c["pile"]
        if pile not in ("required", "neutral"):
            if pile not in index or kind[index[pile]] != PACK:
                raise CatalogueError(
                    f"catalogue metaversus: card {c['id']!r}: pile {pile!r} is not a pack"
                )
            pack_of[i] = index[pile]
            pack_market[index[pile]] += (i,)
        if required[i]:
            if "plus" in c:
                raise CatalogueError(
                    f"catalogue metaversus: card {c['id']!r}: required cards have no '+' state"
                )
            if count[i] == 0:
                raise CatalogueError(
                    f"catalogue metaversus: card {c['id']!r}: required cards need a count"
                )
        elif "plus" not in c or stars[i] < 1:
            raise CatalogueError(
                f"catalogue metaversus: card {c['id']!r}: needs a '+' state with stars >= 1"
            )
        for plus in (0, 1):
            v = _variant(c, bool(plus))
            k = 2 * i + plus
            ap[k] = int(v.get("ap", 0))
            value[k] = int(v.get("value", 0))
            damage[k] = int(v.get("damage", 0))
            effects[k] = _compile(v, c["id"] + ("+" if plus else ""), index, kind)
    skill_kind, skill_trigger = [ACTIVE] * n, [TRIGGER_NONE] * n
    skill_may, skill_uses = [False] * n, [-1] * n
    skill_phase, skill_per_turn = ["any"] * n, [False] * n
    hp, max_hp, difficulty = [0] * n, [0] * n, [""] * n
    for p in packs:
        c = cards[p]
        skill = c["skill"]
        hp[p], max_hp[p], difficulty[p] = c["hp"], c["max_hp"], c["difficulty"]
        if len(pack_market[p]) != PACK_MARKET_TYPES:
            raise CatalogueError(
                f"catalogue metaversus: pack {c['id']!r}: needs {PACK_MARKET_TYPES} market card types"
            )
        if skill.get("type") == "active":
            skill_kind[p] = ACTIVE
            phase = skill.get("phase", "any")
            if phase not in SKILL_PHASES:
                raise CatalogueError(
                    f"catalogue metaversus: pack {c['id']!r}: skill phase {phase!r}"
                )
            skill_phase[p] = phase
            skill_per_turn[p] = bool(skill.get("per_turn", False))
        elif skill.get("type") == "passive":
            skill_kind[p] = PASSIVE
            if skill.get("trigger") not in TRIGGERS:
                raise CatalogueError(
                    f"catalogue metaversus: pack {c['id']!r}: skill trigger {skill.get('trigger')!r}"
                )
            skill_trigger[p] = TRIGGERS[skill["trigger"]]
            skill_may[p] = bool(skill.get("may", False))
        else:
            raise CatalogueError(
                f"catalogue metaversus: pack {c['id']!r}: skill type must be active or passive"
            )
        uses = skill.get("uses")
        skill_uses[p] = -1 if uses is None else int(uses)
        effects[2 * n + p] = COMPILER.compile(skill.get("effect", []), c["id"] + ":skill")
    required_cards = tuple(i for i in range(n) if required[i])
    neutral = tuple(i for i in range(n) if cards[i].get("pile") == "neutral")
    if len(required_cards) != 6 or len(neutral) < 8 or len(packs) < 4:
        raise CatalogueError(
            "catalogue metaversus: needs 6 required cards, >= 8 neutral types, >= 4 packs"
        )
    if {difficulty[p] for p in packs} != set(DIFFICULTIES):
        raise CatalogueError("catalogue metaversus: packs must cover every difficulty")
    return CardTable(
        n=n,
        index=index,
        ids=tuple(c["id"] for c in cards),
        names=tuple(c["name"] for c in cards),
        kind=kind,
        cost=tuple(int(c.get("cost", 0)) for c in cards),
        required=required,
        stars=stars,
        count=count,
        pricier=tuple(int(c.get("pricier", 0)) for c in cards),
        required_cards=required_cards,
        neutral=neutral,
        packs=packs,
        basic_deck=tuple(i for i in range(n) for _ in range(int(cards[i].get("basic", 0)))),
        ap=tuple(ap),
        value=tuple(value),
        damage=tuple(damage),
        effects=tuple(effects),
        pack_market=pack_market,
        pack_of=tuple(pack_of),
        skill_kind=tuple(skill_kind),
        skill_trigger=tuple(skill_trigger),
        skill_may=tuple(skill_may),
        skill_uses=tuple(skill_uses),
        skill_phase=tuple(skill_phase),
        skill_per_turn=tuple(skill_per_turn),
        hp=tuple(hp),
        max_hp=tuple(max_hp),
        difficulty=tuple(difficulty),
    )


CATALOGUE = load_catalogue("engine.metaversus", "catalogue.json", SCHEMA)
#: the catalogue hash of ruleset wish-guide-1 (engine 1.1.0): its cards had no `text`
CATALOGUE_REV1_HASH = catalogue_hash_as_of(CATALOGUE.data, "wish-guide-1", ("text",))
CARDS = card_table(CATALOGUE)


def ops_in_use() -> frozenset[str]:
    """Every effect operation the catalogue uses (the dividing line aside)."""
    return frozenset(op for e in CARDS.effects for op in e.ops) - {"below_line"}
