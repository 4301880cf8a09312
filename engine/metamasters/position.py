"""MetaMasters scenario positions (see docs/metamasters.md) and the view scenarios expect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.prng import Prng
from engine.core.state import GameState
from engine.metamasters.cards import BY_ID, CARDS, K_ACTOR, K_LINK, K_SPECIAL, K_TOKEN
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.setup import REVISION
from engine.metamasters.state import (
    ACTOR_ZONES,
    ATTACK,
    DEFENSE,
    PHASE_NAMES,
    PROMPT_NAMES,
    S_RESOLVE,
    SPECIAL_ZONES,
    Z_ACTOR,
    Z_DECK,
    Z_EXILE,
    Z_HAND,
    Z_LINK,
    Z_SPECIAL,
    Z_TOKEN,
    Z_TRASH,
)


def _entry(raw: Any) -> dict[str, Any]:
    return {"card": raw} if isinstance(raw, str) else dict(raw)


def from_position(position: Mapping[str, Any], revision: int = REVISION) -> MetaMastersState:
    """Build a state from a scenario position (see docs/metamasters.md) under ruleset `revision`.

    Instance ids are given in listing order: player 0's hand, actors (each followed by its
    links), specials, tokens, trash, exile, deck (top first); then player 1's, the same way.
    """
    players = position["players"]
    if len(players) != 2:
        raise ValueError("a position has two players")
    turn = int(position.get("turn", 2))
    active = int(position.get("active", 0))
    phase = PHASE_NAMES.index(position.get("phase", "main1"))
    cid: list[int] = []
    owner: list[int] = []
    placed: list[tuple[int, int, dict[str, Any]]] = []  # (iid, zone, entry)

    def add(q: int, raw: Any, zone: int) -> int:
        e = _entry(raw)
        card = BY_ID[e["card"]]
        iid = len(cid)
        cid.append(card.index)
        owner.append(q)
        placed.append((iid, zone, e))
        return iid

    layout: list[dict[str, Any]] = []
    for q, side in enumerate(players):
        lay: dict[str, Any] = {
            "hand": [],
            "actors": [],
            "specials": [],
            "tokens": [],
            "trash": [],
            "exile": [],
            "deck": [],
        }
        lay["hand"] = [add(q, c, Z_HAND) for c in side.get("hand", [])]
        actors = list(side.get("actors", []))
        if len(actors) > ACTOR_ZONES:
            raise ValueError("at most 3 Actor zones")
        for raw in actors + [None] * (ACTOR_ZONES - len(actors)):
            if raw is None:
                lay["actors"].append((-1, []))
                continue
            a = add(q, raw, Z_ACTOR)
            links = [add(q, x, Z_LINK) for x in _entry(raw).get("links", [])]
            lay["actors"].append((a, links))
        specials = list(side.get("specials", []))
        if len(specials) > SPECIAL_ZONES:
            raise ValueError("at most 3 Special zones")
        lay["specials"] = [
            -1 if raw is None else add(q, raw, Z_SPECIAL)
            for raw in specials + [None] * (SPECIAL_ZONES - len(specials))
        ]
        for key, zone in (
            ("tokens", Z_TOKEN),
            ("trash", Z_TRASH),
            ("exile", Z_EXILE),
            ("deck", Z_DECK),
        ):
            lay[key] = [add(q, c, zone) for c in side.get(key, [])]
        layout.append(lay)
    s = MetaMastersState(tuple(cid), tuple(owner), Prng(int(position.get("seed", 0))), revision)
    for iid, zone, e in placed:
        s.zone[iid] = zone
        kind = CARDS[cid[iid]].kind
        if zone == Z_ACTOR and kind != K_ACTOR:
            raise ValueError(f"{e['card']} is not an Actor")
        if zone == Z_LINK and kind != K_LINK:
            raise ValueError(f"{e['card']} is not a Link")
        if zone == Z_SPECIAL and kind != K_SPECIAL:
            raise ValueError(f"{e['card']} is not a Special card")
        if zone == Z_TOKEN and kind != K_TOKEN:
            raise ValueError(f"{e['card']} is not a Token card")
        if zone in (Z_ACTOR, Z_SPECIAL):
            face_up = e.get("face", "up") == "up"
            s.faceup[iid] = int(face_up)
            default_pos = "attack" if face_up and zone == Z_ACTOR else "defense"
            s.pos[iid] = (
                ATTACK
                if e.get("position", default_pos) == "attack" and zone == Z_ACTOR
                else (DEFENSE if zone == Z_ACTOR else ATTACK)
            )
            set_turn = int(e.get("set_turn", turn - 1))
            set_phase = PHASE_NAMES.index(e.get("set_phase", "main1"))
            s.set_at[iid] = set_turn * 8 + set_phase
            if revision >= 2 and face_up and zone == Z_ACTOR and "set_turn" not in e:
                s.set_at[iid] = -1  # a face-up Actor: played when `set_turn` says, else unknown
            s.attacked[iid] = int(e.get("attacked", 0))
            s.pos_changed[iid] = int(bool(e.get("position_changed", False)))
            s.ego_mod[iid] = int(e.get("ego_mod", 0))
            s.int_mod[iid] = int(e.get("int_mod", 0))
        elif zone == Z_LINK:
            s.faceup[iid] = 1
    for q, lay in enumerate(layout):
        s.hand[q] = lay["hand"]
        s.actors[q] = [a for a, _ in lay["actors"]]
        s.links[q] = [x for a, links in lay["actors"] for x in links]
        for a, links in lay["actors"]:
            for x in links:
                s.host[x] = a
        s.specials[q] = lay["specials"]
        s.tokens[q] = lay["tokens"]
        s.trash[q] = lay["trash"]
        s.exile[q] = lay["exile"]
        s.deck[q] = lay["deck"][::-1]
    s.turn = turn
    s.active = active
    s.first = int(position.get("first", active if turn % 2 else 1 - active))
    s.plays_used = int(position.get("plays_used", 0))
    s.extra_plays = int(position.get("extra_plays", 0))
    s.links_used = int(position.get("links_used", 0))
    s.enter_phase(phase)
    s.settle()
    return s


def scenario_view(state: GameState) -> dict[str, Any]:
    """A JSON-able view of the whole state for scenario expectations (hidden cards included)."""
    assert isinstance(state, MetaMastersState)
    s = state

    def actor(i: int) -> dict[str, Any] | None:
        if i < 0:
            return None
        return {
            "card": s.card(i),
            "iid": i,
            "face": "up" if s.faceup[i] else "down",
            "position": "attack" if s.pos[i] == ATTACK else "defense",
            "ego": s.ego(i),
            "int": s.intel(i),
            "attacked": s.attacked[i],
            "links": [s.card(x) for x in s.links[s.owner[i]] if s.host[x] == i],
        }

    def special(i: int) -> dict[str, Any] | None:
        if i < 0:
            return None
        return {"card": s.card(i), "iid": i, "face": "up" if s.faceup[i] else "down"}

    players = []
    for q in (0, 1):
        players.append(
            {
                "hand": [s.card(i) for i in s.hand[q]],
                "deck_count": len(s.deck[q]),
                "deck_top": [s.card(i) for i in reversed(s.deck[q])],
                "tokens": len(s.tokens[q]),
                "actors": [actor(i) for i in s.actors[q]],
                "actor_count": sum(1 for i in s.actors[q] if i >= 0),
                "specials": [special(i) for i in s.specials[q]],
                "trash": [s.card(i) for i in s.trash[q]],
                "exile": [s.card(i) for i in s.exile[q]],
            }
        )
    top = s.prompts[-1] if s.prompts else None
    return {
        "turn": s.turn,
        "active": s.active,
        "phase": PHASE_NAMES[s.phase],
        "current_player": s.current_player,
        "prompt": PROMPT_NAMES[top[0]] if top else None,
        "over": s.over,
        "winner": s.winner,
        "plays_used": s.plays_used,
        # the response chain (ruleset 2), first link first: each activated card and its target
        "chain": [
            {"card": s.card(src), "target": None if t < 0 else s.card(t)}
            for src, t in (s.link_parts(p[2]) for p in s.prompts if p[0] == S_RESOLVE)
        ],
        "players": players,
    }
