"""WISH scenario positions, and the flat view scenarios expect.

Position format (all keys optional except where noted; card ids as in the catalogue)::

    {"new_match": {"decks": [{...}, {...}], "seed": 1, "options": {...}}}   # a real setup
  or
    {"seed": 7, "characters": ["pack-knight", "pack-witch"],   # required
     "first": 0, "active": 0, "turn": 1, "phase": "action",     # wish|action|buy|combat
     "ap": 1, "gems": 0, "buys": 1, "bought": false, "discount": 0, "weapon_bonus": 0,
     "combat_damage": 0, "played": 0, "weapons_played": 0, "zero": false, "max_rounds": 50,
     "players": [{"hp": 30, "max_hp": 30, "stars": 0, "skill_uses": 3,
                  "hand": [...], "deck": [... top card first], "discard": [...],
                  "play": [...], "removed": [...], "pile": [... top first]}, {...}],
     "market": [["stone", 10, "required"], ["n-scout", 6, "neutral"], ...],
     "neutral_pile": [... top first]}

Without "market", the Market holds the six required cards (full), the first two neutral
types and the first four market types of each character's pack (6 each), and each pack's
other four types form its Character Card Pile; the neutral pile holds the other types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.game import Deck
from engine.core.state import GameState
from engine.metaversus.cards import CARDS, MARKET_PICKS, PACK, STOCK_COPIES
from engine.metaversus.encoding import WishState
from engine.metaversus.setup import DEFAULT_OPTIONS, DEFAULT_OPTIONS_REV1, REVISION, new_match
from engine.metaversus.state import (
    PHASE_NAMES,
    PROMPT_NAMES,
    SOURCE_NAMES,
    SRC_NEUTRAL,
    SRC_P1,
    SRC_REQUIRED,
)


def _card(cid: Any) -> int:
    if not isinstance(cid, str) or cid not in CARDS.index:
        raise ValueError(f"unknown card {cid!r}")
    return CARDS.index[cid]


def _cards(ids: Any) -> list[int]:
    if not isinstance(ids, list):
        raise ValueError(f"expected a list of card ids, got {ids!r}")
    return [_card(c) for c in ids]


def from_position(pos: Mapping[str, Any], revision: int = REVISION) -> WishState:
    """Build a state from a scenario position (see the module docstring) under ruleset
    `revision`."""
    if "new_match" in pos:
        nm = pos["new_match"]
        decks: tuple[Deck, Deck] = (nm["decks"][0], nm["decks"][1])
        return new_match(decks, int(nm.get("seed", 0)), nm.get("options", {}), revision)
    s = WishState(int(pos.get("seed", 0)), revision)
    chars = [_card(c) for c in pos["characters"]]
    if len(chars) != 2 or any(CARDS.kind[k] != PACK for k in chars):
        raise ValueError("characters: two character pack ids")
    s.char = chars
    s.first = int(pos.get("first", 0))
    s.active = int(pos.get("active", s.first))
    s.turn = int(pos.get("turn", 1))
    phase = pos.get("phase", "action")
    if phase not in PHASE_NAMES[1:5]:
        raise ValueError(f"phase must be wish, action, buy or combat, got {phase!r}")
    s.phase = PHASE_NAMES.index(phase)
    s.ap = int(pos.get("ap", 1 if phase == "action" else 0))
    s.gems = int(pos.get("gems", 0))
    s.buys = int(pos.get("buys", 1))
    s.bought = int(bool(pos.get("bought", False)))
    s.discount = int(pos.get("discount", 0))
    s.wbonus = int(pos.get("weapon_bonus", 0))
    s.pool = int(pos.get("combat_damage", 0))
    s.played = int(pos.get("played", 0))
    s.wplayed = int(pos.get("weapons_played", 0))
    s.zero = bool(pos.get("zero", False))
    defaults = DEFAULT_OPTIONS_REV1 if revision == 1 else DEFAULT_OPTIONS
    s.max_rounds = int(pos.get("max_rounds", defaults["max_rounds"]))
    players = pos.get("players", [{}, {}])
    if len(players) != 2:
        raise ValueError("players: two objects")
    for p, pl in enumerate(players):
        k = chars[p]
        s.hp[p] = int(pl.get("hp", CARDS.hp[k]))
        s.maxhp[p] = int(pl.get("max_hp", CARDS.max_hp[k]))
        s.stars[p] = int(pl.get("stars", 0))
        s.uses[p] = int(pl.get("skill_uses", CARDS.skill_uses[k]))
        s.hand[p] = _cards(pl.get("hand", []))
        s.deck[p] = _cards(pl.get("deck", []))[::-1]
        s.disc[p] = _cards(pl.get("discard", []))
        s.play[p] = _cards(pl.get("play", []))
        s.removed[p] = _cards(pl.get("removed", []))
        if "pile" in pl:
            s.pile[p] = _cards(pl["pile"])[::-1]
        else:
            s.pile[p] = list(CARDS.pack_market[k][MARKET_PICKS:])[::-1]
    if "market" in pos:
        for entry in pos["market"]:
            cid, stock, src = entry
            s.m_card.append(_card(cid) if cid is not None else -1)
            s.m_stock.append(int(stock))
            s.m_src.append(SOURCE_NAMES.index(src))
    else:
        for c in CARDS.required_cards:
            s.m_card.append(c)
            s.m_stock.append(CARDS.count[c])
            s.m_src.append(SRC_REQUIRED)
        for c in CARDS.neutral[:2]:
            s.m_card.append(c)
            s.m_stock.append(STOCK_COPIES)
            s.m_src.append(SRC_NEUTRAL)
        for p in (0, 1):
            for c in CARDS.pack_market[chars[p]][:MARKET_PICKS]:
                s.m_card.append(c)
                s.m_stock.append(STOCK_COPIES)
                s.m_src.append(SRC_P1 + p)
    if "neutral_pile" in pos:
        s.neutral = _cards(pos["neutral_pile"])[::-1]
    elif "market" not in pos:
        s.neutral = list(CARDS.neutral[2:])[::-1]
    return s


def scenario_view(state: GameState) -> dict[str, Any]:
    """A flat JSON view for expectations (hands sorted; decks and piles top card first)."""
    assert isinstance(state, WishState)
    s = state
    ids = CARDS.ids

    def names(cards: list[int]) -> list[str]:
        return [ids[c] for c in cards]

    stock: dict[str, int] = {}
    for c, n in zip(s.m_card, s.m_stock, strict=True):
        if c >= 0:
            stock[ids[c]] = stock.get(ids[c], 0) + n
    top = s.stack[-1] if s.stack else None
    prompt = {"kind": PROMPT_NAMES[top[0]], "player": top[1]} if isinstance(top, list) else None
    return {
        "phase": PHASE_NAMES[s.phase],
        "active": s.active,
        "first": s.first,
        "turn": s.turn,
        "current_player": s.current_player,
        "over": s.over,
        "engine_limit": s.ended_by_engine_limit,
        "winner": s.winner,
        "characters": [ids[k] if k >= 0 else None for k in s.char],
        "hp": list(s.hp),
        "max_hp": list(s.maxhp),
        "stars": list(s.stars),
        "skill_uses": list(s.uses),
        "ap": s.ap,
        "gems": s.gems,
        "buys": s.buys,
        "bought": bool(s.bought),
        "discount": s.discount,
        "weapon_bonus": s.wbonus,
        "combat_damage": s.pool,
        "played": s.played,
        "zero": s.zero,
        "hand": [sorted(names(s.hand[p])) for p in (0, 1)],
        "deck": [names(s.deck[p][::-1]) for p in (0, 1)],
        "deck_size": [len(s.deck[0]), len(s.deck[1])],
        "discard": [sorted(names(s.disc[p])) for p in (0, 1)],
        "discard_size": [len(s.disc[0]), len(s.disc[1])],
        "play": [names(s.play[p]) for p in (0, 1)],
        "removed": [sorted(names(s.removed[p])) for p in (0, 1)],
        "pile": [names(s.pile[p][::-1]) for p in (0, 1)],
        "neutral_pile": names(s.neutral[::-1]),
        "market": [
            [ids[c] if c >= 0 else None, n, SOURCE_NAMES[src]]
            for c, n, src in zip(s.m_card, s.m_stock, s.m_src, strict=True)
        ],
        "stock": stock,
        "prices": [s.price(i) if c >= 0 else None for i, c in enumerate(s.m_card)],
        "prompt": prompt,
        "selection": [sorted(names(s.sel[p])) for p in (0, 1)],
        "legal": [[a.kind, *a.args] for a in s.legal_actions()],
        "cards": total_cards(s),
    }


def total_cards(s: WishState) -> int:
    """Cards in every zone, the Market stock and 6 per unrevealed pile type (conserved)."""
    n = sum(len(z[p]) for z in (s.hand, s.deck, s.disc, s.play, s.removed) for p in (0, 1))
    n += sum(s.m_stock)
    n += STOCK_COPIES * (len(s.neutral) + len(s.pile[0]) + len(s.pile[1]))
    return n
